"""Domain objects as response schemas: shared by the API, webhooks and the public page."""
