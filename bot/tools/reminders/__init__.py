"""REMINDERS.md: its checklist format (checklist), the model's tools (tools) and the minute
job that surfaces due reminders (job)."""

__all__: list[str] = []
