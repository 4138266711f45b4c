"""Status embed config (SPEC 2.2): the badge the embed script shows on other sites."""

from typing import Literal

from chalicelib.schemas.common import Color, OutSchema, Schema

Position = Literal["top-left", "top-right", "bottom-left", "bottom-right"]


class StatusEmbedConfigFields(Schema):
    position: Position | None = None
    incident_background_color: Color | None = None
    incident_text_color: Color | None = None
    maintenance_background_color: Color | None = None
    maintenance_text_color: Color | None = None


class StatusEmbedConfigUpdate(Schema):
    status_embed_config: StatusEmbedConfigFields


class StatusEmbedConfigOut(OutSchema):
    page_id: str
    position: str
    incident_background_color: str
    incident_text_color: str
    maintenance_background_color: str
    maintenance_text_color: str
