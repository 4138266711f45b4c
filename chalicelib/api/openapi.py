"""`GET /v1/openapi.json`: the document of the whole API (extension)."""

from chalice import Blueprint

from chalicelib.http.routing import ApiRequest, Router, Style

blueprint = Blueprint(__name__)
router = Router(blueprint, "meta")


@router.route(
    "/v1/openapi.json",
    ["GET"],
    summary="This API's OpenAPI 3.1 document",
    authenticated=False,
    style=Style.ARCHIVED,
)
def openapi_document(request: ApiRequest):
    from chalicelib.schemas.openapi import document  # pydantic's JSON schema, on first use

    return document()
