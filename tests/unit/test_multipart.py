"""Forms that post files: multipart bodies decode into the same nested dict as forms."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from urllib3 import encode_multipart_formdata

from chalicelib.http.decode import decode_body, decode_form
from chalicelib.http.errors import ApiError
from chalicelib.http.multipart import MAX_BODY_BYTES, UploadedFile, refuse_files

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) + b"\r\n--not-a-boundary\r\n"


def test_fields_and_nested_names_decode_as_a_form_does():
    body, content_type = encode_multipart_formdata(
        [
            ("csrf", "token"),
            ("page[name]", "Acme – status"),
            ("page[ids][]", "a"),
            ("page[ids][]", "b"),
        ]
    )
    assert decode_body(body, content_type) == decode_form(
        "csrf=token&page[name]=Acme+%E2%80%93+status&page[ids][]=a&page[ids][]=b"
    )


def test_a_file_part_keeps_its_exact_bytes_and_claimed_name_and_type():
    body, content_type = encode_multipart_formdata(
        [("csrf", "token"), ("branding[logo]", ("logo.png", PNG, "image/png"))]
    )
    decoded = decode_body(body, content_type)
    assert decoded["csrf"] == "token"
    assert decoded["branding"]["logo"] == UploadedFile("logo.png", "image/png", PNG)


def test_a_file_input_left_empty_is_no_field():
    body, content_type = encode_multipart_formdata(
        [("csrf", "token"), ("logo", ("", b"", "application/octet-stream"))]
    )
    assert decode_body(body, content_type) == {"csrf": "token"}


def test_a_body_over_the_limit_is_refused_with_413():
    big = b"\0" * (MAX_BODY_BYTES + 1)
    body, content_type = encode_multipart_formdata([("logo", ("big.png", big, "image/png"))])
    with pytest.raises(ApiError) as raised:
        decode_body(body, content_type)
    assert raised.value.status == 413


def test_a_file_larger_than_a_form_body_may_be_still_decodes():
    two_megabytes = b"\1" * (2 * 1024 * 1024)
    body, content_type = encode_multipart_formdata(
        [("logo", ("a.png", two_megabytes, "image/png"))]
    )
    assert decode_body(body, content_type)["logo"].content == two_megabytes


@pytest.mark.parametrize(
    "raw, content_type",
    [
        (
            b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
            "multipart/form-data",
        ),
        (
            b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1',
            "multipart/form-data; boundary=x",
        ),
        (
            b'--x\r\nContent-Disposition: attachment; name="a"\r\n\r\n1\r\n--x--',
            "multipart/form-data; boundary=x",
        ),
        (
            b"--x\r\nContent-Disposition: form-data\r\n\r\n1\r\n--x--",
            "multipart/form-data; boundary=x",
        ),
        (b"--x\r\nno header end\r\n--x--", "multipart/form-data; boundary=x"),
        (
            b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n\xff\r\n--x--',
            "multipart/form-data; boundary=x",
        ),
        (
            b'--x\r\nContent-Disposition: form-data; name="a["\r\n\r\n1\r\n--x--',
            "multipart/form-data; boundary=x",
        ),
    ],
)
def test_a_malformed_body_is_400(raw, content_type):
    with pytest.raises(ApiError) as raised:
        decode_body(raw, content_type)
    assert raised.value.status == 400


def test_a_quoted_boundary_and_a_preamble_are_read():
    raw = b'preamble\r\n--a b\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n--a b--\r\nepilogue'
    assert decode_body(raw, 'multipart/form-data; boundary="a b"') == {"x": "1"}


@given(st.binary(max_size=300))
def test_any_bytes_decode_or_give_a_client_error(raw):
    for candidate in (raw, b"--x\r\n" + raw, b"--x\r\n" + raw + b"\r\n--x--"):
        try:
            assert isinstance(decode_body(candidate, "multipart/form-data; boundary=x"), dict)
        except ApiError as error:
            assert 400 <= error.status < 500


def test_a_handler_that_takes_no_file_refuses_one_by_name():
    body, content_type = encode_multipart_formdata(
        [("incident[name]", "x"), ("incident[metadata][a][b]", ("f.png", PNG, "image/png"))]
    )
    decoded = decode_body(body, content_type)
    with pytest.raises(ApiError) as raised:
        refuse_files(decoded)
    assert raised.value.status == 422
    assert list(raised.value.errors) == ["incident.metadata.a.b"]
    refuse_files(decode_form("incident[name]=x&incident[ids][]=a"))  # no file: nothing said
