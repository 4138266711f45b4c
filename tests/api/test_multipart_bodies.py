"""The API takes a multipart/form-data body as it takes a form (browsers and curl `-F` send
one), but no API field takes a file: one is refused, never stored."""

from urllib3 import encode_multipart_formdata


def post_multipart(world, path: str, fields: list) -> object:
    body, content_type = encode_multipart_formdata(fields)
    return world.api.post(path, body, headers={"Content-Type": content_type})


def test_a_multipart_body_creates_a_component(world):
    answer = post_multipart(
        world, f"/v1/pages/{world.page_id}/components", [("component[name]", "Search")]
    )
    assert answer.status == 201, answer.text
    assert answer.json["name"] == "Search"


def test_a_file_in_an_api_body_is_refused_naming_its_field(world):
    answer = post_multipart(
        world,
        f"/v1/pages/{world.page_id}/incidents",
        [
            ("incident[name]", "Uploaded"),
            ("incident[metadata][a][b]", ("a.bin", b"\x00\x01binary", "application/octet-stream")),
        ],
    )
    assert answer.status == 422, answer.text
    assert list(answer.json["errors"]) == ["incident.metadata.a.b"]
    listed = world.api.get(f"/v1/pages/{world.page_id}/incidents").json
    assert [incident["name"] for incident in listed] == []
