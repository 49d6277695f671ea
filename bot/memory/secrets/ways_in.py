"""Passwords and codes told by the way in they give, for :mod:`bot.memory.secrets.passwords`.
Each rule reads one sentence of folded text:

- a value by what it opens ("the ipad unlocks with dinosaur2", "join HomeNet_5G with
  coffee-tiger-42", "sunflower1987 is what I use for the netflix login", "set the laptop one to
  rex99", "o portátil abre com gato22"), by what it is typed into ("the guest wifi, type
  seahorse41") or used for ("use 'Lisboa2025' to get on the wifi", a texted code: "Use 739201
  to verify your account");
- a value before what it is for ("Trellis-Otter-91 -- that one's for the pharmacy portal");
- an emoji that names a value ("🏧 5519", "🔑 Lisboa#22").
"""

from __future__ import annotations

import re

from bot.memory.secrets.code_words import NOT_A_CODE
from bot.memory.secrets.password_words import NOT_MIXED, TRAVEL_NUMBER
from bot.memory.secrets.values import Span, value_span

__all__ = ["way_in_spans"]


#: what a password opens: a device, an account, a way in
_SIGNED_IN = (
    r"(?:laptop|phone|ipad|tablet|computer|computador|portatil|telemovel|celular|pc|mac|router"
    r"|wifi|wi-fi|account|conta|login|log in|sign in|portal|email|e-mail|bank|banco|netflix"
    r"|one|lock|safe|alarm|unlock|desbloque\w*|entrar|pasword|passowrd|spotify|instagram|insta"
    r"|facebook|gmail|google|apple|steam|xbox|playstation)\b"
)


#: a value by what it does: "the kids' ipad unlocks with dinosaur2", "sunflower1987 is what
#: I use for the netflix login", "set the laptop one to rex99", "o portátil abre com gato22"
_USED_AS = (
    re.compile(
        r"\b(?:unlock(?:s|ed)?|lock(?:s|ed)?|opens?|opened|log(?:s|ged)? ?in(?:to)?"
        r"|sign(?:s|ed)? in"
        r"|join|joins|connect(?:s)? to|desbloqueia|desbloqueio|abre|entro|entra|ligam?-se a"
        r"|conecta(?:m)?(?:-se)? (?:a|ao|na|no))\b(?:[ ]+[^\s,;.!?]+){0,3}?[ ]+"
        r"(?:with|using|com|usando)[ ]+(?:the[ ]+)?(?P<value>[^\s,;]+)"
    ),
    re.compile(  # "Marta's phone unlocks with her birthday 1403"
        r"\b(?:unlock(?:s|ed)?|opens?|opened|desbloqueia|abre)\b(?:[ ]+[^\s,;.!?]+){0,3}?[ ]+"
        r"(?:with|using|com|usando)(?:[ ]+[^\s,;.!?\d]+){1,3}?[ ]+"
        r"(?!(?:19|20)\d\d\b)(?P<value>\d{3,8})\b"
    ),
    re.compile(
        r"(?<![\w@/.:-])(?P<value>[^\s,;]{4,64})[ ]+(?:is|e|eh)[ ]+(?:what|o que)[ ]+(?:i|eu)?[ ]*"
        r"(?:use|type|enter|put in|uso|digito|ponho|escrevo)\b"
        rf"(?=[^.!?\n]*\b{_SIGNED_IN})"
    ),
    re.compile(  # "use 'Lisboa2025' to get on the wifi", "usa Lisboa2025 pra entrar", a code
        # sent by text: "Use 739201 to verify your account", "Use 482913 para confirmar"
        r"\b(?:use|type|enter|put in|try|usa|usem|digita|digite|coloca|coloque|poe|ponha"
        r"|mete)[ ]+[\"'“‘]?(?P<value>[^\s,;\"'“”‘’]{3,64})[\"'”’]?[ ]+(?:to|for|pra|para|pro)[ ]+"
        r"(?:get (?:on|onto|into|in)|log ?in|sign in|connect|join|unlock|open|access|entrar"
        r"|desbloquear|abrir|acessar|conectar|logar|verify|confirm|validate|authenticate"
        r"|verificar|confirmar|validar|autenticar)\b"
    ),
    re.compile(
        rf"\b(?:set|changed|reset|switched|mudei|troquei|alterei|pus|defini)\b(?=[^.!?\n]{{0,40}}?"
        rf"\b{_SIGNED_IN})[^.!?\n]{{0,40}}?"
        r"\b(?:to|para|pra|como)[ ]+(?P<value>(?=[^\s]{0,63}[a-z])(?=[^\s]{0,63}\d)[^\s,;]{5,64})"
    ),
)


def _used_as(start: int, sentence: str) -> list[Span]:
    spans = []
    for pattern in _USED_AS:
        for match in pattern.finditer(sentence):
            value = match.group("value").rstrip(".!?")
            digits = sum(c.isdigit() for c in value)
            symbols = any(not c.isalnum() for c in value)
            if len(value) < 3 or not (digits or symbols) or NOT_MIXED.fullmatch(value):
                continue
            if re.fullmatch(rf"\d+[ ]*{NOT_A_CODE}|\d+%?|\d{{1,2}}(?::\d\d)?", value) and (
                digits < 3 or not value.isdigit()
            ):
                continue  # "opens with 20% off", "opens at 9"
            if TRAVEL_NUMBER.fullmatch(value):
                continue
            kind = "code" if value.isdigit() else "password"
            spans.append(value_span(start, match, kind, value))
    return spans


#: a word of letters and digits typed in, in a sentence that names what it opens: "the guest
#: wifi, type seahorse41", "no portátil digita gato22 e pronto"
_TYPED = re.compile(
    r"\b(?:type|enter|key in|punch in|digita|digite|introduz|introduza|insere|insira)[ ]+"
    r"[\"'“‘]?(?P<value>(?=[^\s]{0,63}[a-z])(?=[^\s]{0,63}\d)[^\s,;\"'”’]{4,64})"
)
#: what a typed word opens: a network, a device, a lock
_TYPED_INTO = re.compile(
    r"\b(?:wifi|wi-fi|wlan|rede|network|router|roteador|laptop|portatil|computador|computer|pc"
    r"|ipad|tablet|phone|telemovel|celular|alarm|alarme|keypad|teclado|lock|cadeado|safe|cofre"
    r"|netflix|login|unlock\w*|desbloque\w*)\b"
)


def _typed(start: int, sentence: str) -> list[Span]:
    """A word of letters and digits typed in where the sentence names what it opens; not a
    model, a size, a flight or a train."""
    if not _TYPED_INTO.search(sentence):
        return []
    spans = []
    for match in _TYPED.finditer(sentence):
        value = match.group("value").rstrip(".!?")
        if NOT_MIXED.fullmatch(value) or TRAVEL_NUMBER.fullmatch(value):
            continue
        spans.append(value_span(start, match, value=value))
    return spans


#: "Trellis-Otter-91 -- that one's for the pharmacy portal": a value, then what it is for
_VALUE_FOR = re.compile(
    r"(?<![\w@/.:-])(?P<value>[^\s,;]{4,64})[ ]*(?:-+|–|—|:|,)[ ]*"
    r"(?:that|this|it|isso|essa|esse|esta|este)"
    r"(?:['’]s|[ ]+is|[ ]+one['’]s|[ ]+one is|[ ]+e|[ ]+eh)?"
    r"[ ]+(?:(?:the|my|one|your|our|o|a)[ ]+)?(?:for|pro|pra|para|do|da|de)[ ]+[^.!?\n]{0,30}?"
    r"\b(?:portal|login|account|wifi|wi-fi|bank|banco|conta|senha|password|pin|laptop"
    r"|computer|computador|phone|telemovel|celular|router|netflix)\b"
)


def _value_for(start: int, sentence: str) -> list[Span]:
    spans = []
    for m in _VALUE_FOR.finditer(sentence):
        value = m.group("value")
        if any(c.isdigit() for c in value) or any(not c.isalnum() for c in value.strip("-")):
            spans.append(value_span(start, m))
    return spans


#: "🏧 5519", "🔐: 7731", "🔑 Lisboa#22": an emoji that names what follows
_EMOJI_VALUE = re.compile(
    r"(?P<emoji>[\U0001f3e7\U0001f511\U0001f510\U0001f512\U0001f513])"
    r"\ufe0f?[ ]*[:=-]?[ ]*(?P<value>[^\s,;]{3,64})"
)


def _emoji_values(start: int, sentence: str) -> list[Span]:
    spans = []
    for m in _EMOJI_VALUE.finditer(sentence):
        value = m.group("value").rstrip(".!?")
        if not any(c.isdigit() for c in value) and value.isalpha():
            continue  # "🔑 keys are under the mat"
        kind = (
            "pin" if m.group("emoji") == "\U0001f3e7" else "code" if value.isdigit() else "password"
        )
        spans.append(value_span(start, m, kind, value))
    return spans


def way_in_spans(start: int, sentence: str) -> list[Span]:
    """Every value of ``sentence`` (folded, at ``start`` in its text) told by the way in it
    gives, unordered."""
    return [
        *_value_for(start, sentence),
        *_used_as(start, sentence),
        *_typed(start, sentence),
        *_emoji_values(start, sentence),
    ]
