"""Console tests: the app over moto through Chalice's test client, as a browser would use
it: cookies kept between requests, each form's CSRF token read from the page it is on."""

import re
from dataclasses import dataclass, field
from urllib.parse import urlencode

import pytest
from urllib3 import encode_multipart_formdata

from tests.api.conftest import *  # noqa: F403 (the app over moto, `world`)
from tests.api.conftest import Answer

PASSWORD = "correct horse battery staple"
_CSRF = re.compile(r'name="csrf" value="([^"]*)"')


@dataclass
class Console:
    """One browser: its cookies, and the last page it was shown."""

    client: object
    cookies: dict[str, str] = field(default_factory=dict)
    last: Answer | None = None
    token: str = ""  # the CSRF token of the last form shown (bound to the session, not a form)

    def request(
        self,
        method: str,
        path: str,
        form: dict | list | None = None,
        *,
        body: bytes = b"",
        content_type: str | None = None,
    ) -> Answer:
        headers = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if form is not None:
            content_type = "application/x-www-form-urlencoded"
            body = urlencode(form).encode()
        if content_type:
            headers["Content-Type"] = content_type
        response = self.client.http.request(method, path, headers=headers, body=body)
        assert response.status_code < 500, response.body
        headers = {key.lower(): value for key, value in response.headers.items()}
        set_cookie = headers.get("set-cookie")
        if set_cookie:
            name, _, rest = set_cookie.partition("=")
            value = rest.split(";")[0]
            if "Max-Age=0" in set_cookie:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        self.last = Answer(response.status_code, headers, response.body.decode())
        found = _CSRF.search(self.last.text)
        if found:
            self.token = found.group(1)
        return self.last

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def csrf(self) -> str:
        return self.token

    def post(self, path: str, form: dict | list, *, csrf: bool = True) -> Answer:
        pairs = list(form.items()) if isinstance(form, dict) else list(form)
        if csrf:
            pairs.append(("csrf", self.csrf()))
        return self.request("POST", path, pairs)

    def post_files(
        self, path: str, form: dict | list, files: dict[str, tuple[str, bytes, str]]
    ) -> Answer:
        """A form with files (`{"name": (filename, bytes, content type)}`), posted as a
        browser posts one: multipart/form-data, the CSRF token among its fields."""
        pairs = list(form.items()) if isinstance(form, dict) else list(form)
        pairs.append(("csrf", self.csrf()))
        body, content_type = encode_multipart_formdata(pairs + list(files.items()))
        return self.request("POST", path, body=body, content_type=content_type)

    def sign_in(self, email: str, password: str = PASSWORD) -> Answer:
        self.get("/manage/sign-in")
        return self.post("/manage/sign-in", {"email": email, "password": password})


@pytest.fixture
def console(http) -> Console:
    return Console(http)


@pytest.fixture
def make_user(world):
    """A user of the world's organization who signs in with `PASSWORD`; `roles` for the
    world's page (None: an owner)."""
    from chalicelib.domain import organizations
    from chalicelib.ids import new_id

    def make(roles: dict | None = None):
        email = f"user-{new_id()}@example.com"
        user = organizations.create_user(
            world.organization_id, email, password=PASSWORD, owner=roles is None
        )
        if roles is not None:
            organizations.set_page_roles(user, {world.page_id: roles})
        return email

    return make
