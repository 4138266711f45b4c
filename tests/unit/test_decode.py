import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chalicelib.http.decode import decode_body, decode_form
from chalicelib.http.errors import ApiError


def test_bracketed_form_keys_nest():
    body = decode_form(
        "page[name]=Acme&page[allow_sms_subscribers]=f&incident[component_ids][]=a"
        "&incident[component_ids][]=b&incident[components][abc]=major_outage"
    )
    assert body == {
        "page": {"name": "Acme", "allow_sms_subscribers": "f"},
        "incident": {"component_ids": ["a", "b"], "components": {"abc": "major_outage"}},
    }


def test_form_arrays_of_objects_start_a_new_object_when_a_key_repeats():
    body = decode_form("d[][t]=1&d[][v]=2&d[][t]=3&d[][v]=4")
    assert body == {"d": [{"t": "1", "v": "2"}, {"t": "3", "v": "4"}]}


def test_json_and_form_decode_to_the_same_dict():
    as_json = decode_body(json.dumps({"page": {"name": "A b"}}), "application/json")
    as_form = decode_body("page%5Bname%5D=A+b", "application/x-www-form-urlencoded; charset=utf-8")
    assert as_json == as_form == {"page": {"name": "A b"}}


@pytest.mark.parametrize(
    "raw, content_type",
    [
        ("{not json", "application/json"),
        ("[1, 2]", "application/json"),
        ('{"page": {}}', "text/plain"),
        ('{"page": {}}', "application/x-www-form-urlencoded"),
        ("a=1&a[b]=2", "application/x-www-form-urlencoded"),
        (b"\xff\xfe", "application/json"),
    ],
)
def test_a_body_that_does_not_match_its_content_type_is_400(raw, content_type):
    with pytest.raises(ApiError) as raised:
        decode_body(raw, content_type)
    assert raised.value.status == 400
    assert raised.value.body() == {"error": "Bad request"}


def test_an_empty_body_is_an_empty_dict_whatever_its_type():
    assert decode_body(b"", "text/plain") == {}
    assert decode_body(None, None) == {}


@given(
    st.binary(max_size=200),
    st.sampled_from(["application/json", "application/x-www-form-urlencoded", "", "text/xml"]),
)
def test_any_bytes_decode_or_give_400(raw, content_type):
    try:
        assert isinstance(decode_body(raw, content_type), dict)
    except ApiError as error:
        assert error.status == 400
