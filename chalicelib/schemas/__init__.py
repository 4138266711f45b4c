"""pydantic models of every request and response body; the OpenAPI document comes from them."""
