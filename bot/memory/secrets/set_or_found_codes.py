"""A code the speaker set or found, for :mod:`bot.memory.secrets.codes` and
:mod:`bot.memory.secrets.speech`. Each rule reads folded text (lower case, no accents, offsets
kept):

- the number a code or PIN was set to, in a sentence that names that code before the verb:
  "the Tesla app wants a PIN to drive, I set it to 2806", "pede um código de 4 dígitos para
  arrancar, pus 7142", "the safe app wanted a new code so I went with 7731" (:func:`set_codes`);
  or in the sentence after the one that named it: "The app wants a PIN. I set it to 2806",
  "The PIN? Changed it to 6618" (:data:`SET_IT`, after a sentence :func:`names_set_code`);
- the code one signs in with, or a lock's, whose value the next sentence gives after "found
  it": "Roblox sent a login code to your email ... nvm found it, 448 219", "Bank sent me an
  OTP. Got it, 112 938", "What's the gate code? Found it: 4471" (:data:`FOUND_IT`, after a
  sentence that :func:`names_sign_in_code` or :func:`names_set_code`).

What is left: a sum or a goal set ("Sim, pus 1500 na poupança": "sim" is yes), a time an alarm
rings at ("my alarm on the phone, I set it to 0545", "o alarme toca às 7, mudei para 0730"), a
number with its unit ("1800 seconds", "2400 baud"), a code that keeps nothing shut or one
named after the verb ("the postcode form wanted a code", "the oven code E3", "the code club",
"mudei para 2100 o código de cores"), a year unless a PIN's word came before it; and after
"found it", a tracking, discount or booking code's number.
"""

from __future__ import annotations

import re

from bot.memory.secrets.code_words import NOT_A_CODE, OTHER_CODE, YEAR, code_kind
from bot.memory.secrets.values import Span

__all__ = ["FOUND_IT", "SET_IT", "names_set_code", "names_sign_in_code", "set_codes"]


#: a code named as the one that is set: a PIN, a password, a combination, a lock's or an app's
#: code, a new one, one of so many digits; not a thermostat's or an oven's "code"
_SET_WHAT = re.compile(
    r"\b(?:pins?|passcodes?|passwords?|senhas?|palavra-passe|combinations?|combinacao|combo|puk"
    r"|keycodes?|(?:door|gate|alarm|safe|lock|lockbox|key ?safe|intercom|buzzer|keypad|garage"
    r"|app|phone|access|entry|security"
    r"|disarm|unlock|new|master|secret|\d[- ]digit)[ ]+codes?"
    r"|codes?[ ]+(?:for|to|of)[ ]+(?:the[ ]+|my[ ]+|our[ ]+)?(?:door|gate|alarm|safe|lock"
    r"|keypad|garage|app|phone|unlock|open|get in|disarm)"
    r"|codigos?[ ]+(?:novo|de[ ]+\d[ ]+digitos|de acesso|de seguranca|de desbloqueio"
    r"|d[oa][ ]+(?:portao|porta|alarme|cofre|cadeado|app|aplicacao|aplicativo|telemovel"
    r"|celular|garagem|teclado))"
    r"|novo codigo)\b"
)
#: a PIN's word, which makes even a year its number: "the PIN, I set it to 1987"
_PIN_WORD = re.compile(r"\b(?:pins?|passcodes?|senhas?|combinations?|combinacao|combo|puk)\b")


#: the verb of a code set and its number: "I set it to 2806", "pus 7142", "mudei para 4455"
_SET_CODE = re.compile(
    r"\b(?:set (?:it|that|mine|ours|one) (?:to|as)|changed (?:it|that|mine) to|made it|went with"
    r"|pus|coloquei|meti|botei|defini|escolhi|mudei (?:para|pra))[ ]+(?:o |a |the )?"
    rf"(?<![\w.,/:-])(?P<value>\d{{4,8}})(?![\w.,/:-]?\d|[ ]*{NOT_A_CODE})"
)
#: a sentence about the time an alarm wakes someone or rings: "I set it to 0630" is a time
_WAKING = re.compile(
    r"\b(?:clock|wake|waking|despertador|acordar|acordo|timer|alarm (?:on|in) (?:my|the) phone"
    r"|phone'?s? alarm|toca|tocar|rings?|beeps?|goes off|arms|dispara)\b"
)


def names_set_code(sentence: str) -> bool:
    """Whether ``sentence`` names a code that is set (a PIN, a lock's or an app's code), one
    that keeps something shut, not an alarm's time."""
    return bool(
        _SET_WHAT.search(sentence)
        and not OTHER_CODE.search(sentence)
        and not _WAKING.search(sentence)
    )


def set_codes(start: int, sentence: str) -> list[Span]:
    """The number the speaker set a code or PIN to, in ``sentence`` (folded, at ``start`` in
    its text), which names that code before the verb; a year only after a PIN's word."""
    found = list(_SET_CODE.finditer(sentence))
    if not found or not names_set_code(sentence):
        return []
    kind = code_kind(sentence)
    spans = []
    for m in found:
        if not _SET_WHAT.search(sentence, 0, m.start()):
            continue
        if YEAR.fullmatch(m.group("value")) and not _PIN_WORD.search(sentence, 0, m.start()):
            continue
        spans.append(Span(start + m.start("value"), start + m.end("value"), kind))
    return spans


#: a sentence that opens with the verb of a code set, after one that named the code: "I set it
#: to 2806", "changed it to 6618", "pus 7142"
SET_IT = re.compile(
    r"[ ]*(?:(?:so|and|ok|okay|e|entao|pronto)[ ,]+)?(?:(?:i|we|eu|nos)[ ]+)?"
    r"(?:set it (?:to|as)|changed it to|made it|went with|pus|coloquei|meti|defini|escolhi"
    r"|mudei (?:para|pra)|mudei-o para)[ ]+(?:o |a |the )?"
)


#: a sentence that says the value was found, then gives it: "nvm found it, 448 219", "achei, é
#: 093 557"
FOUND_IT = re.compile(
    r"[ ]*(?:(?:nvm|never ?mind|ok|okay|oh|ah|wait|pronto|deixa|esquece|ja)[ ,]+)?"
    r"(?:found it|got it|here it is|achei|encontrei|aqui esta|ta aqui)[ ]*[,:!-]+[ ]*"
    r"(?:(?:it'?s|its|e|eh)[ ]+)?"
)
#: the code one signs in with, or one sent to sign in: a login, a verification, a one-time
#: code, an OTP, a PIN, a security code; one sent by text, by a bank
_SIGN_IN = re.compile(
    r"\b(?:login|log[ -]?in|sign[ -]?in|signin|verification|verify|verifica\w*|one[ -]time|otp"
    r"|2fa|mfa|two[ -]factor|pin|passcode|security|seguranca|autenticacao|authentication|auth"
    r"|confirmation|confirmacao|acesso|access|entrar|sms|texted|sent|mandou|enviou|mandaram"
    r"|enviaram|bank|banco|mb ?way)\b"
)


def names_sign_in_code(sentence: str) -> bool:
    """Whether ``sentence`` names a code one signs in with ("Roblox sent a login code", "O
    banco mandou um código por SMS"), not a tracking, discount or booking code."""
    return _SIGN_IN.search(sentence) is not None and OTHER_CODE.search(sentence) is None
