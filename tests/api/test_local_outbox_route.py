"""The outbox page is the local stack's alone (issue 32, item 15): the deployed app has no
route under /_local."""


def test_the_deployed_app_has_no_outbox_route(chalice_app, http):
    assert not [path for path in chalice_app.routes if path.startswith("/_local")]
    # API Gateway's own answer to a path no route has (infra/ turns it into the contract's 404).
    answer = http.http.get("/_local/outbox")
    assert (answer.status_code, answer.body) == (
        403,
        b'{"message": "Missing Authentication Token"}',
    )
