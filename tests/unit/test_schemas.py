import pytest
from pydantic import ValidationError

from chalicelib.http.errors import from_validation_error
from chalicelib.schemas.pages import PageUpdate


def test_colors_gain_a_hash_and_keep_their_case():
    fields = PageUpdate.model_validate({"page": {"css_reds": "FF0000", "css_blues": "#00f"}}).page
    assert (fields.css_reds, fields.css_blues) == ("#FF0000", "#00f")


@pytest.mark.parametrize(
    "value, expected", [("t", True), ("f", False), ("true", True), ("0", False)]
)
def test_form_booleans(value, expected):
    assert (
        PageUpdate.model_validate({"page": {"hidden_from_search": value}}).page.hidden_from_search
        is expected
    )


def test_empty_domain_clears_it():
    fields = PageUpdate.model_validate({"page": {"domain": ""}}).page
    assert fields.domain is None and "domain" in fields.model_fields_set


def test_validation_errors_name_fields_below_the_wrapper():
    with pytest.raises(ValidationError) as raised:
        PageUpdate.model_validate({"page": {"time_zone": "Nowhere/Else", "css_reds": "x"}})
    error = from_validation_error(raised.value, "page")
    assert error.status == 422
    assert set(error.errors) == {"time_zone", "css_reds"}


def test_subdomain_is_lowercased_and_checked():
    assert (
        PageUpdate.model_validate({"page": {"subdomain": "Acme-Status"}}).page.subdomain
        == "acme-status"
    )
    with pytest.raises(ValidationError):
        PageUpdate.model_validate({"page": {"subdomain": "-acme"}})
