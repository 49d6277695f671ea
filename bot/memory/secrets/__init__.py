"""The secret detector (:mod:`~bot.memory.secrets.detector`) with the rules of each kind of
secret, and the door every turn passes through (:mod:`~bot.memory.secrets.door`): what is
written never holds a password, PIN, code, card, account, key or seed phrase."""

__all__: list[str] = []
