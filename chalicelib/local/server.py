"""The Chalice app over HTTP, served as `chalice local` serves it."""

import threading

from chalice.config import Config
from chalice.local import ChaliceRequestHandler, LocalDevServer, create_local_server

# Chalice writes headers and body separately; without this a keep-alive client's delayed
# ACK holds every response back by ~40 ms.
ChaliceRequestHandler.disable_nagle_algorithm = True


def start(app, host: str, port: int) -> LocalDevServer:
    config = Config.create(chalice_stage="local", app_name=app.app_name, chalice_app=app)
    server = create_local_server(app, config, host, port)
    threading.Thread(target=server.server.serve_forever, name="http", daemon=True).start()
    return server
