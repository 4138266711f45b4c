"""The local stack's header parser answers as the standard library's does."""

import http.client
import io

import pytest

from chalicelib.local.header_parsing import parse_headers

BLOCKS = [
    b"Host: 127.0.0.1:8000\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n",
    b"X-Amz-Target: DynamoDB_20120810.GetItem\r\nAuthorization: AWS4-HMAC-SHA256 "
    b"Credential=local/20261123/us-east-1/dynamodb/aws4_request, SignedHeaders=host, "
    b"Signature=abc\r\n\r\n",
    b"Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nEmpty:\r\nSpaced:   value with  spaces \r\n\r\n",
    b"Folded: first\r\n  second\r\nNext: x\r\n\r\n",
    b"Caf\xe9: latin-1 bytes \xff\r\n\r\n",
    b"\r\n",
    b"",
]


@pytest.mark.parametrize("block", BLOCKS)
def test_same_headers_as_the_standard_parser(block):
    ours = parse_headers(io.BytesIO(block + b"body"))
    theirs = http.client.parse_headers(io.BytesIO(block + b"body"))
    assert ours.items() == theirs.items()
    assert ours.get_payload() == theirs.get_payload()
    assert ours.get_all("Set-Cookie") == theirs.get_all("Set-Cookie")


def test_reads_only_the_header_block():
    stream = io.BytesIO(b"A: 1\r\n\r\nbody")
    parse_headers(stream)
    assert stream.read() == b"body"
