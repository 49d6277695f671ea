"""No secret reaches the disk, whatever happens to the process: ``personad run`` with Talk as its
platform, memory on, a message of every shape of secret (phrasings of no labelled set), a value
that comes in the message after its question, a turn cut off by SIGKILL and answered by the
next process, ``/new`` and a distillation. Then every byte of the data folder is read (session
logs, digests, ``memory.db``, ``personad.db`` and their WAL): no value is in any of them, and
the ordinary facts said beside them are kept in the session log.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.test_nothing_lingers import CONFIG, World, talk_world, until

#: (message, its value): a verification set, not tuned on
SECRETS = [
    ("the wifi in the studio is called Atelier and its password is cravinho42", "cravinho42"),
    ("my locker at the pool opens with 4-4-0-9", "4-4-0-9"),
    ("PIN of the new debit card: nine two two eight", "nine two two eight"),
    ("a senha do meu email agora é Lagartixa#19", "Lagartixa#19"),
    ("o pin do alarme ficou um três três sete", "um três três sete"),
    ("'seven silver spoons' is what I type to unlock my diary app", "seven silver spoons"),
    (
        "backup phrase for the ledger: orange cactus blanket thunder mirror velvet oyster"
        " candle harbor pepper meadow frost",
        "thunder mirror velvet",
    ),
    ("I switched the router admin password to Pinheiro_77", "Pinheiro_77"),
    ("checking acct # 7720193845", "7720193845"),
    ("conta corrente 12345-6, agência 0789", "12345-6"),
    ("the security code on the back of my mastercard is 618", "back of my mastercard is 618"),
    ("slack token xoxb-2203948573-AbCdEfGhIjKlMnOp", "xoxb-2203948573-AbCdEfGhIjKlMnOp"),
    (
        "Anthropic key sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
        "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
    ),
    ("my passport number is X4821937", "X4821937"),
    ("the garage door keypad takes 3 1 7 7", "3 1 7 7"),
]
#: a question, then the value alone in the next message
CARRIED = [
    ("what's the password of the printer again? I need to note it", "tinteiro2033"),
    ("qual é o pin novo do cartão?", "oito zero zero quatro"),
]
ORDINARY = [
    "We moved to 221 Baker Street in 2019.",
    "The password reset email never arrived, so I called support.",
    "O código de rastreio da encomenda chegou por SMS.",
    "My son's school code of conduct is strict about phones.",
    "I paid 49.90 for the headphones.",
    "A minha avó faz anos a 3 de maio.",
]
CUT_OFF = ("o código do cadeado da bicicleta é 6-2-8-1", "6-2-8-1")


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    config_text = (
        CONFIG.replace('backend = "none"', 'backend = "sqlite-fts5"')
        .replace('identities = ["nctalk:scott"]', 'identities = ["nctalk:scott"]\nadmin = true')
        .replace(
            'log_format = "json"',
            'log_format = "json"\nuser_rate_per_minute = 6000\nuser_burst = 500',
        )
    )
    async with talk_world(tmp_path, config_text) as world:
        yield world


async def test_no_secret_of_any_shape_is_left_anywhere_on_disk(world: World) -> None:
    await world.start()
    said = [text for text, _value in SECRETS] + ORDINARY
    for question, value in CARRIED:
        said += [question, value]
    for count, text in enumerate(said, 1):
        await world.say(text)
        await world.answers(count)
    # a turn cut off by SIGKILL while the model thinks, answered by the next process
    world.model.lead = 3600.0
    await world.say(CUT_OFF[0])
    await until(lambda: len(world.model.requests) > len(said), 30.0)
    world.daemon.kill()
    world.model.lead = 0.0
    await world.start()
    await world.answers(len(said) + 1)
    for count, command in enumerate(("/new", "/distill short", "/distill mid"), len(said) + 2):
        await world.say(command)
        await world.answers(count)
    world.daemon.terminate()
    values = [value for _text, value in [*SECRETS, *CARRIED, CUT_OFF]]
    files = world.every_file()
    assert any(path.name == "memory.db" for path in files)
    assert any(path.name == "MEMORY_SHORT.md" for path in files)
    left = {value: world.holding(value, files) for value in values}
    assert {value: where for value, where in left.items() if where} == {}
    log = b"".join(p.read_bytes() for p in files if p.parent.name == "sessions")
    assert [text for text in ORDINARY if text.encode() not in log] == []
    assert b"[secret withheld: pin]" in log and b"[secret withheld: password]" in log
