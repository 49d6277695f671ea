"""A name said to the one spoken to is not what a message is about.

"Hey Mel! Good to see you!" and "Thanks so much, Caroline!" name the person they are said to,
and so do questions put to the persona by name ("Inara, what did I say about the dentist?").
Indexed, such a name makes every greeting a match for a question that names that person
("What did Caroline paint?"): a short message that holds the name and little else ranks high
by BM25 and takes a place from the message that answers. :func:`unaddressed` takes those names
out of a text before its words are indexed or searched; the text itself is kept as it was said.

A name counts as said to someone (a word with a capital letter, not a stopword, and the next
one too when it also has one: "Hi Dr Okafor") when it comes

- right after a greeting or thanks that opens a sentence: "hey Mel", "hi, Caroline", "thanks
  Inara", "well done, Dad", "olá Ana", "bom dia, Rui", "ai Joana", "parabéns Rita" (but "Hi,
  Ingrid here" names the one who speaks);
- after a comma, ending a question or a sentence that speaks to someone (a greeting, thanks,
  "you", "você" or "tu" before it): "how did the appointment go, Ana?", "good to see you,
  Mel!", "thanks so much, Caroline", "beijinhos, Joana."

A name after a comma anywhere else stays ("I moved to Porto, Portugal.", "'Welcome home',
Milo insisted."), and so does one after words that may as well open a sentence about
something else ("Good luck Thursday", "Oh no, RIP Gus"; "Owen, you..." beside "Amazing,
you..."). A question put to the persona by its name ("Inara, what did I say about the
dentist?") finds no greeting by that name, since none was indexed with it.

Measured with ``bench/recall_quality.py --named`` (greetings by name in every session,
questions naming the two people, as public benchmarks ask them), write path, BM25 alone,
recall@5: set A .624 -> .676, set B .267 -> .325, set D .432 -> .462, every part higher; with
e5 set D .558 either way; the sets as written unchanged.
"""

from __future__ import annotations

import re

from bot.memory.sqlite.query import STOPWORDS, fold
from bot.memory.sqlite.stemming import index_terms

__all__ = ["message_terms", "unaddressed"]

# a word with a capital letter whatever the case of the words around it, and the next one too
# when it has one ("Dr Okafor")
_NAME = r"(?-i:[A-ZÀ-Þ])[^\W\d_]*(?:[ ](?-i:[A-ZÀ-Þ])[^\W\d_]*)?"
_GREETINGS = (
    r"hey|hi|hiya|hello|howdy|yo|morning|evening|dear|thanks|thank[ ]you|cheers|congrats"
    r"|congratulations|bye|goodbye|welcome|oi|ol[aá]|al[oô]|bom[ ]dia|boa[ ]tarde|boa[ ]noite"
    r"|obrigad[oa]|valeu|parab[eé]ns|querid[oa]|tchau|adeus|beijos?|beijinhos?|abra[cç]os?"
    r"|aw|ai|well[ ]done|happy[ ]birthday|boa[ ]sorte|feliz[ ]anivers[aá]rio"
)
# a sentence starts at the text's start or after its end mark; "oh", "and", "good" may lead
_SENTENCE = r"(?:^|(?<=[.!?…\n])[ ]*)(?:(?:oh|ah|and|so|well|good|e|ent[aã]o)[ ,]+)?"
# "Hi, Ingrid here" names the one who speaks, not the one spoken to
_SPEAKER = r"[ ,]+(?:here|again|speaking|typing|writing|aqui|de[ ]novo|outra[ ]vez|falando)\b"
_AFTER_GREETING = re.compile(
    rf"{_SENTENCE}(?:{_GREETINGS})\b,?[ ]+(?P<name>{_NAME})\b(?!{_SPEAKER})",
    re.IGNORECASE | re.MULTILINE,
)
# ", Mel!" ending a question, or a sentence said to someone: with "you", or a greeting or
# thanks, before it
_CLOSING = re.compile(rf",[ ]+(?P<name>{_NAME})[ ]*(?=[.!?…]|$)", re.IGNORECASE | re.MULTILINE)
_SAID_TO = re.compile(rf"\b(?:{_GREETINGS}|you|voc[eê]|tu)\b", re.IGNORECASE)
_SENTENCE_ENDS = ".!?…\n"


def _said_to(text: str, comma: int) -> bool:
    """Whether the sentence before the comma at ``comma`` speaks to someone."""
    start = max(text.rfind(mark, 0, comma) for mark in _SENTENCE_ENDS) + 1
    return _SAID_TO.search(text, start, comma) is not None


def _spans(text: str) -> list[tuple[int, int]]:
    found = list(_AFTER_GREETING.finditer(text))
    found += [
        m
        for m in _CLOSING.finditer(text)
        if text.startswith("?", m.end()) or _said_to(text, m.start())
    ]
    spans = []
    for match in found:
        start, end = match.span("name")
        words = text[start:end].split(" ")
        if fold(words[0]) in STOPWORDS:  # "Hi I'm back"
            continue
        if len(words) > 1 and fold(words[1]) in STOPWORDS:
            end = start + len(words[0])
        spans.append((start, end))
    return spans


def unaddressed(text: str) -> str:
    """``text`` with each name said to the one spoken to blanked out (same length, so offsets
    still match the text)."""
    spans = _spans(text)
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def message_terms(text: str) -> str:
    """The index stems of a message: its words but the names said to the one spoken to."""
    return index_terms(unaddressed(text))
