"""Language model backends behind one small base (:mod:`bot.llm.base`)."""

__all__: list[str] = []
