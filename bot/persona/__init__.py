"""Personas: where their files live (:mod:`.store`), how they become a prompt
(:mod:`.context`) and how a new one is made (:mod:`.template`)."""

__all__: list[str] = []
