"""Memory: the always-injected file layer and one active backend (:mod:`bot.memory.base`)."""

__all__: list[str] = []
