"""Domain objects as response schemas: shared by the API, the console, webhooks and the public
page."""
