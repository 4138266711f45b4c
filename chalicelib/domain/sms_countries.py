"""The countries SMS notifications go to: calling code and national number lengths."""

from dataclasses import dataclass

import phonenumbers
from phonenumbers import PhoneNumberType


@dataclass(frozen=True)
class SmsCountry:
    code: str
    name: str
    calling_code: str
    lengths: tuple[int, ...]


COUNTRIES = {
    country.code: country
    for country in (
        SmsCountry("AT", "Austria", "43", tuple(range(10, 14))),
        SmsCountry("AU", "Australia", "61", (9,)),
        SmsCountry("BE", "Belgium", "32", (8, 9)),
        SmsCountry("BR", "Brazil", "55", (10, 11)),
        SmsCountry("CA", "Canada", "1", (10,)),
        SmsCountry("CH", "Switzerland", "41", (9,)),
        SmsCountry("DE", "Germany", "49", (10, 11)),
        SmsCountry("DK", "Denmark", "45", (8,)),
        SmsCountry("ES", "Spain", "34", (9,)),
        SmsCountry("FI", "Finland", "358", (9, 10)),
        SmsCountry("FR", "France", "33", (9,)),
        SmsCountry("GB", "United Kingdom", "44", (10,)),
        SmsCountry("IE", "Ireland", "353", (9,)),
        SmsCountry("IN", "India", "91", (10,)),
        SmsCountry("IT", "Italy", "39", (9, 10)),
        SmsCountry("JP", "Japan", "81", (10,)),
        SmsCountry("MX", "Mexico", "52", (10,)),
        SmsCountry("NL", "Netherlands", "31", (9,)),
        SmsCountry("NO", "Norway", "47", (8,)),
        SmsCountry("NZ", "New Zealand", "64", (8, 9, 10)),
        SmsCountry("PL", "Poland", "48", (9,)),
        SmsCountry("PT", "Portugal", "351", (9,)),
        SmsCountry("SE", "Sweden", "46", (7, 8, 9)),
        SmsCountry("SG", "Singapore", "65", (8,)),
        SmsCountry("US", "United States", "1", (10,)),
        SmsCountry("ZA", "South Africa", "27", (9,)),
    )
}


def national_number(country: SmsCountry, written: str) -> str | None:
    """The number's national digits as dialled from `country`, or None if it is not one."""
    digits = "".join(character for character in written if character.isdigit())
    if written.strip().startswith("+"):
        if not digits.startswith(country.calling_code):
            return None
        digits = digits[len(country.calling_code) :]
    elif country.calling_code != "1" and digits.startswith("0"):
        digits = digits[1:]  # the trunk prefix dialled inside the country
    elif country.calling_code == "1" and len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if len(digits) not in country.lengths:
        return None
    return digits


# What a text message may be sent to: a mobile number, or one of a plan that does not tell
# mobile from fixed (the United States', Canada's). Every other range (premium-rate,
# shared-cost, toll-free, landline, VoIP, pager, personal, or no range of the plan) is
# refused: a premium number on the page's form would be paid for by the operator.
_TEXTABLE = frozenset({PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE_OR_MOBILE})


def is_mobile(country_code: str, national: str) -> bool:
    """Whether the number is in a mobile range of its country's numbering plan, as Google's
    libphonenumber (the `phonenumbers` package, kept up to date with every plan) has it."""
    try:
        number = phonenumbers.parse(e164(country_code, national))
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.number_type(number) in _TEXTABLE


def e164(country_code: str, national: str) -> str:
    return f"+{COUNTRIES[country_code].calling_code}{national}"
