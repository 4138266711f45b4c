"""The Chalice app: the blueprints and the event handlers, nothing else."""

from chalice import Chalice

from chalicelib.api import embed, openapi, organizations, pages

app = Chalice(app_name="statuspage")
app.register_blueprint(pages.blueprint)
app.register_blueprint(organizations.blueprint)
app.register_blueprint(embed.blueprint)
app.register_blueprint(openapi.blueprint)
