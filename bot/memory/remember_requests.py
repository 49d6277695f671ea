"""A sentence that asks to be remembered, and the fact it asks to keep.

"Remember that Ana lives in Porto", "Can you keep in mind that I'm vegetarian?", "Lembra-te de
que o meu dentista é o Dr. Costa", "Guarda isto: sou alérgico a nozes": people ask in many ways,
in English and Portuguese, politely or not, as a request or as a question. Such a fact is
promoted into USER.md or MEMORY.md at once (:mod:`bot.persona.promotion`), and the write policy
keeps it even when it is phrased as a question (:func:`bot.memory.policy.classify`).

What is *not* a request to keep a fact: a reminder ("remember to buy milk", "lembra-me de
ligar", "não te esqueças de comprar pão"), a question about the past ("do you remember the
trip?", "remember when we went to Sintra?"), and anything where the cue is not how the
sentence opens ("I remember that day"). The words that carry the cue are matched on the folded
sentence (lower case, no accents, offsets kept), so the fact comes back as it was written.
"""

from __future__ import annotations

import re

from bot.memory.secrets.detector import fold_in_place

__all__ = ["asked_to_remember", "fact_to_keep"]

#: what may come before the request: greetings, fillers, politeness
_LEAD = (
    r"(?:(?:hey|hi|oh|ok|okay|so|and|also|btw|by the way|olha|olhe|ah|ei|entao|e|tambem"
    r"|ja agora|alias|please|pls|por favor|porfa)\s*[,!]?\s+)*"
)
#: "can you", "I want you to", "você pode", "quero que": a request phrased around the verb
_ASK = (
    r"(?:(?:can|could|would|will) you\s+(?:please\s+)?"
    r"|i (?:want|need|would like|'d like|d like) you to\s+"
    r"|(?:(?:voce|vc|tu)\s+)?(?:pode|podes|poderia|poderias|consegue|consegues)"
    r"\s+(?:por favor\s+)?"
    r"|(?:quero|queria|preciso|gostava|gostaria) que\s+(?:(?:tu|voce|vc)\s+)?)?"
)
#: verbs that ask for what follows to be kept, with or without "that"/"que". "For the record",
#: "just so you know", "fica sabendo" only inform: the write policy keeps what they introduce
#: (:data:`bot.memory.policy.NOTE_MARKERS`), but they ask nothing to be remembered ("FYI I'm
#: stuck in traffic" is no line for USER.md)
_PLAIN_CUE = (
    r"remember|memori[sz]e|(?:keep|bear) (?:it |this |that )?in mind|(?:don'?t|do not|never) forget"
    r"|make a note|take (?:a )?note"
    r"|lembr(?:a|e|es|ares|ar)(?:-te|-se| te| se)?|(?:nao|nunca) (?:te |se )?esquec(?:a|as|e|es|er)"
    r"|(?:toma|tome) nota"
)
#: verbs that mean something else on their own ("guarda o carro" puts the car away, "note the
#: date"): only before "that"/"que" or a colon ("guarda isto:", "anota aí que", "note:")
_OBJECT_CUE = (
    r"note(?: down)?|save|store|write down|keep"
    r"|guard(?:a|e|ar)|grav(?:a|e|ar)|regist(?:r)?(?:a|e|ar)|memoriz(?:a|e|ar)|decor(?:a|e|ar)|anot(?:a|e|ar)"
)
_OBJECT = r"(?:this|that|isto|isso|ai|aqui|esta|essa)"
_CONNECT = r"(?:that|de que|que)\b"


_REQUEST = re.compile(
    rf"^\s*{_LEAD}{_ASK}(?:(?P<plain>{_PLAIN_CUE})|(?P<verb>{_OBJECT_CUE}))\b\s*"
    # then "that"/"que", or "this:" / "isto:" / "aí que", or a colon or a comma
    rf"(?:(?P<link>{_CONNECT})"
    rf"|{_OBJECT}\b\s*(?:(?P<mark>[:,\-–])\s*)?(?P<link2>{_CONNECT})?"
    rf"|(?P<mark2>[:,\-–]))?"
    r"\s*"
)
#: what follows a cue in a reminder, not a fact: "remember to", "lembra-me de", "esqueças de"
_REMINDER = re.compile(r"^(?:to\b|-?me\b|de\b|do\b|da\b|of\b)")
#: what follows a cue in a question about the past, unless "that"/"que" came first
_QUESTION = re.compile(
    r"^(?:what|when|where|who|why|how|which|whether|if|the time|o que|quando|onde|quem|como"
    r"|qual|quais|porque|por que|se)\b"
)
#: "the", "a", "o", "uma": what a bare cue followed by a thing, not a statement, opens with
_ARTICLE = re.compile(r"^(?:the|a|an|o|os|as|um|uma|uns|umas)\b")
_TRAILING = re.compile(r"[\s.!?…]+$")
_MIN_WORDS = 2


def asked_to_remember(sentence: str) -> str | None:
    """The fact ``sentence`` asks to be remembered, as it was written, or None when it asks
    nothing of the kind."""
    folded = fold_in_place(sentence).replace("’", "'")
    match = _REQUEST.match(folded)
    if match is None:
        return None
    linked = bool(match.group("link") or match.group("link2"))
    marked = bool(match.group("mark") or match.group("mark2"))
    if match.group("verb") and not (linked or marked):
        return None
    rest = folded[match.end() :]
    if _REMINDER.match(rest):
        return None
    if not linked and _QUESTION.match(rest):
        return None
    if not (linked or marked) and _ARTICLE.match(rest):
        return None  # "remember the milk": a thing to bring, not a fact
    fact = _TRAILING.sub("", sentence[match.end() :])
    if len(fact.split()) < _MIN_WORDS:
        return None
    return fact


def fact_to_keep(text: str) -> str:
    """What a memory store keeps of ``text``: the fact a request to remember asks for, else
    ``text`` itself ("remember that Ana lives in Porto" and "Ana lives in Porto" are one
    memory, and saying it again reinforces it)."""
    return asked_to_remember(text) or text
