"""The Chalice app: the blueprints and the event handlers, nothing else."""

from chalice import Chalice

from chalicelib.api import (
    component_groups,
    components,
    embed,
    incident_templates,
    incidents,
    openapi,
    organizations,
    pages,
    postmortems,
)

app = Chalice(app_name="statuspage")
for blueprint_module in (
    pages,
    organizations,
    embed,
    components,
    component_groups,
    incidents,
    postmortems,
    incident_templates,
    openapi,
):
    app.register_blueprint(blueprint_module.blueprint)
