"""The scheduled functions: maintenance steps, reminders, the outbox sweep."""
