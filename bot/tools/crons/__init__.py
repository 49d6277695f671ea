"""CRONS.json: schedules (schedule), the file and its pruning (jobfile), the model's tools
(tools) and the minute job that runs due jobs (job)."""

__all__: list[str] = []
