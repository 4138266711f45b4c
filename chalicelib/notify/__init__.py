"""Notifications: the outbox, the fan-out to recipients, and delivery."""
