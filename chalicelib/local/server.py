"""The Chalice app over HTTP, served as `chalice local` serves it, with the contract's answers
where Chalice's gateway would give its own.

Chalice's local gateway answers a path no route matches with API Gateway's 403 and, when the
request carries an `Authorization` header, quotes that header (the caller's API key) in the
body. Here such a path is the contract's 404, as the gateway responses in infra/ make it on
AWS. The access log masks a key sent as `?api_key=`.
"""

import json
import re
import threading
from http.server import BaseHTTPRequestHandler

from chalice.config import Config
from chalice.local import (
    ChaliceRequestHandler,
    CustomLocalChalice,
    LocalChalice,
    LocalDevServer,
    LocalGateway,
    LocalGatewayException,
)

from chalicelib.http import errors

_API_KEY_IN_QUERY = re.compile(r"(?i)([?&]api_key=)[^&\s]*")


class _NoSuchRoute(LocalGatewayException):
    CODE = 404


class _Gateway(LocalGateway):
    def _generate_lambda_event(self, method, path, headers, body):
        try:
            return super()._generate_lambda_event(method, path, headers, body)
        except ValueError:
            body = json.dumps(errors.not_found().body()).encode()
            raise _NoSuchRoute({"Content-Type": "application/json"}, body) from None


class _RequestHandler(ChaliceRequestHandler):
    # Chalice writes headers and body separately; without this a keep-alive client's delayed
    # ACK holds every response back by ~40 ms.
    disable_nagle_algorithm = True

    def __init__(self, request, client_address, server, app_object, config):
        self.local_gateway = _Gateway(app_object, config)
        BaseHTTPRequestHandler.__init__(self, request, client_address, server)

    def log_request(self, code="-", size="-") -> None:
        line = masked_request_line(self.requestline)
        self.log_message('"%s" %s %s', line, str(getattr(code, "value", code)), str(size))


def masked_request_line(line: str) -> str:
    """The request line as the access log shows it: an API key in the query is masked."""
    return _API_KEY_IN_QUERY.sub(r"\1[masked]", line)


def start(app, host: str, port: int) -> LocalDevServer:
    config = Config.create(chalice_stage="local", app_name=app.app_name, chalice_app=app)
    if not isinstance(app, LocalChalice):
        # As `chalice.local.create_local_server` does, with our request handler.
        CustomLocalChalice.__bases__ = (LocalChalice, app.__class__)
        app.__class__ = CustomLocalChalice
    server = LocalDevServer(app, config, host, port, handler_cls=_RequestHandler)
    threading.Thread(target=server.server.serve_forever, name="http", daemon=True).start()
    return server
