"""A nineteenth hand's secrets, withheld; its ordinary look-alikes, kept as they are.

The set (:mod:`tests.secret_phrasings_round19_data`) was written before reading the rules:
a small shop's till and supplier portals ("Till drawer override is 7734"), a teenager's games
and school ("nvm found it, 448 219" after a login code), a parent's bank details relayed by
whoever looks after them, backup codes and recovery keys, the car's and the house's apps ("the
Tesla app wants a PIN to drive, I set it to 2806", "pede um código de 4 dígitos para arrancar,
pus 7142", "the Ring login is our family email and Doorbell_Sunny9"), dictation with filler
words, a value in the sentence after the one that names it ("Its disarm number is 60418.",
"Fica Avo.Manel1942, com ponto no meio."), corrections, quotes, code blocks, emoji, an id by
its Portuguese name ("número de utente do SNS"). Its look-alikes: takings, invoices, orders,
flights, firmware versions, scores, postcodes, "extension 4417" beside a card machine, a
network's name and its guest network's, a password's word quoted as a word.

The second part was written after the rules were mended, against them: other sentences of the
same shapes, and look-alikes of the words the new rules act on ("the price override is 1200",
"I set it to 0630" of an alarm clock, "the sign-in page is slow and Chrome_v2 crashes"); and
a value in a block of code on the line after the one that announces it ("my password is
below." and then a fence), which the rules before read as the fence.

The third part is what a review of those rules found: ordinary sentences they withheld ("Sim,
pus 1500 na poupança" read "sim" as a SIM card; "My alarm on the phone, I set it to 0545"; "The
heating override is 2100 watts"; "What's the tracking code? Found it, 448 219"; the line after
a block of code that closed), look-alikes of them written after the rules were mended, and
secrets of the same shapes still missed ("The app wants a PIN. I set it to 2806", "Mudei a
senha do email. Ficou Gato Preto 21").
"""

from __future__ import annotations

import pytest

from bot.memory.secrets.detector import MARKERS, redact_secrets
from bot.memory.secrets.door import withhold
from tests.secret_phrasings_round19_data import (
    ORDINARY,
    REVIEW_LOOK_ALIKES,
    REVIEW_ORDINARY,
    REVIEW_SECRETS,
    SECRETS,
)

#: a text that gives a secret of the shapes mended, and each value that must not be readable
SAME_SHAPES: list[tuple[str, list[str]]] = [
    ("the manager override on the till is 4921", ["4921"]),
    ("Supervisor override: 5580", ["5580"]),
    ("Ok the app asked for a 4-digit pin, I set it to 0917", ["0917"]),
    ("A app do banco pediu um PIN novo, coloquei 2281", ["2281"]),
    ("the safe app wanted a new code so I went with 7731", ["7731"]),
    ("Steam sent me a code. found it: 552 801", ["552 801"]),
    ("O banco mandou um código por SMS. Achei, é 093 557", ["093 557"]),
    ("Mudei a senha do email. Fica Gato#Preto21.", ["Gato#Preto21"]),
    ("The Hue login is the usual email and Lamp_Kitchen4", ["Lamp_Kitchen4"]),
    ("o login da Tapo é o email da casa e Quintal!88", ["Quintal!88"]),
    ("the alarm's disarm number is 4471", ["4471"]),
    ("O número de utente da avó é 123 456 789", ["123 456 789"]),
    # a value on the line after the one that announces it, inside a block of code
    ("my password is below.\n```\nhunter2\n```", ["hunter2"]),
    ("a senha do wifi:\n```text\nGirassol#22\n```", ["Girassol#22"]),
    ("chave api do sistema: fx_live_8HqT2wLm9PzR4kVn\nobrigado", ["fx_live_8HqT2wLm9PzR4kVn"]),
]

#: look-alikes of the words the mended rules act on
NEAR_MISSES: list[str] = [
    "Call me on extension 2210 about the card machine",
    "A máquina do multibanco da loja avariou, liga para o ramal 2210",
    "The thermostat override is set to 21 degrees",
    "The price override is 1200 for the wedding cake",
    "My alarm clock code thing, I set it to 0630",
    "I lost the PIN letter. Found it, it was in the drawer.",
    "Lost my code book. Found it, 250 pages of notes!",
    "The network is called Vodafone-5G and the guest one is Guest_5G_2",
    "The user is Maria and she's 42",
    "The bomb squad disarmed 2300 mines last year",
    "the disarm button is the red one, hold it 3 seconds",
    "A password do site mudou. Fica para amanhã.",
    "The login is on the left and Sign_Up2 on the right",
    "the sign-in page is slow and Chrome_v2 crashes",
    "O utente 12 foi chamado ao balcão 3",
    "Sou utente do centro de saúde de Benfica desde 2019",
    "The code review took ages, I set it to 2 approvers",
    "The promo code was SAVE10, I went with 1500 points instead",
    'Na aula de inglês aprendemos que "password" quer dizer "palavra-passe"',
]

EVERY_SECRET = [
    *((text, list(values)) for _kind, text, values in SECRETS),
    *SAME_SHAPES,
    *((text, list(values)) for text, values in REVIEW_SECRETS),
]
EVERY_ORDINARY = [*ORDINARY, *NEAR_MISSES, *REVIEW_ORDINARY, *REVIEW_LOOK_ALIKES]


def test_the_set_is_as_described() -> None:
    assert len(SECRETS) == 60
    assert len(ORDINARY) == 60
    assert (len(REVIEW_ORDINARY), len(REVIEW_LOOK_ALIKES), len(REVIEW_SECRETS)) == (30, 16, 12)
    assert {kind for kind, _text, _values in SECRETS} == {
        "account",
        "card",
        "code",
        "id",
        "key",
        "password",
        "pin",
        "seed",
    }


@pytest.mark.parametrize(("text", "values"), EVERY_SECRET)
def test_each_secret_value_is_withheld(text: str, values: list[str]) -> None:
    redacted = redact_secrets(text)
    assert MARKERS.search(redacted), redacted
    for value in values:
        assert value not in redacted, redacted
    assert redact_secrets(redacted) == redacted


@pytest.mark.parametrize(("text", "values"), EVERY_SECRET)
def test_each_secret_value_is_withheld_at_the_door(text: str, values: list[str]) -> None:
    withheld = withhold(text)
    for value in values:
        assert value not in withheld, withheld


@pytest.mark.parametrize("text", EVERY_ORDINARY)
def test_ordinary_text_is_kept(text: str) -> None:
    assert redact_secrets(text) == text
    assert withhold(text) == text
