"""Secrets as people say them in chat, for :mod:`bot.memory.secrets.detector`, beside the key
phrases of :mod:`bot.memory.secrets.key_phrases`: the text is read a sentence at a time
(folded: lower case, no accents, offsets kept) by the rules of each kind of value, each in a
module of its own: codes and PINs (:mod:`bot.memory.secrets.codes`, with digits said one or
two at a time, :mod:`bot.memory.secrets.spoken_digits`, a lock's numbers,
:mod:`bot.memory.secrets.lock_numbers`, and the words they share,
:mod:`bot.memory.secrets.code_words`), cards and accounts
(:mod:`bot.memory.secrets.cards`), passwords (:mod:`bot.memory.secrets.passwords`, with a
value by the way in it gives, :mod:`bot.memory.secrets.ways_in`, a password beside its name,
:mod:`bot.memory.secrets.sign_in_pairs`, and the words that name or may be one,
:mod:`bot.memory.secrets.password_words`), seed phrases (:mod:`bot.memory.secrets.seeds`),
unlock patterns (:mod:`bot.memory.secrets.unlock_patterns`) and PINs said as one number in full
words (:mod:`bot.memory.secrets.spelled_numbers`). Here are the rules that read across
sentences: digits said slowly ("four... seven... one... nine"), a number standing alone after a
sentence about a code or a card ("... 4719."), the value that answers a key asked alone ("the
PIN? 7 3 1 9, same as the old one"), and the other values of a sentence that gave one ("it's
now 2468 instead of 1357") or of the sentence that corrects it ("... no sorry that's the old
one, it's Bolacha2023 now": :func:`sentence_siblings`), and the value after "found it" or "I
set it to" (:mod:`bot.memory.secrets.set_or_found_codes`). A "!" or "?" a value carries does
not end its sentence ("type Sol2024! to unlock the laptop").
"""

from __future__ import annotations

import re
from bisect import bisect_left

from bot.memory.secrets.cards import CARD_WORD, card_spans
from bot.memory.secrets.code_words import NOT_SIBLING, YEAR, code_kind, words_before
from bot.memory.secrets.codes import (
    CODE_NUMBER,
    CODE_TOPIC,
    ONLY_NUMBER,
    code_parts,
    code_spans,
)
from bot.memory.secrets.lock_numbers import names_service
from bot.memory.secrets.password_words import MIXED, NOT_MIXED, names_password
from bot.memory.secrets.passwords import password_spans
from bot.memory.secrets.phrase_patterns import LABEL_LINE
from bot.memory.secrets.security_answers import answer_spans
from bot.memory.secrets.seeds import SENTENCE_WORDS, seed_spans, wallet_spans
from bot.memory.secrets.set_or_found_codes import (
    FOUND_IT,
    SET_IT,
    names_set_code,
    names_sign_in_code,
)
from bot.memory.secrets.spelled_numbers import full_number_spans
from bot.memory.secrets.spoken_digits import DIGIT_RUN, SLOW_DIGITS
from bot.memory.secrets.unlock_patterns import pattern_spans
from bot.memory.secrets.values import Span

__all__ = ["sentence_siblings", "spoken_secrets"]

_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;](?=\S)[^.!?;\n]*)*")
#: a word of letters and digits, as a value is
_LETTERS_AND_DIGITS = re.compile(r"(?=\S*[a-z])(?=\S*\d)\S+")
#: what goes on after such a mark: a space and a word
_GOES_ON = re.compile(r"[!?]+[ ]+[a-z]")


def _sentences(folded: str) -> list[tuple[int, int]]:
    """The sentences of ``folded`` as (start, end): a mark before a space or a line ends one,
    except a "!" or "?" that a value carries, glued to a word of letters and digits with more
    words after it ("type sol2024! to unlock the laptop", "digita sol2024! pra desbloquear"):
    the rules that read what a value opens need the words after it."""
    if "! " not in folded and "? " not in folded:
        return [match.span() for match in _SENTENCE.finditer(folded)]
    spans: list[tuple[int, int]] = []
    for match in _SENTENCE.finditer(folded):
        start, end = match.span()
        if spans and _carries_mark(folded, *spans[-1], start):
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def _carries_mark(folded: str, start: int, end: int, following: int) -> bool:
    """Whether the sentence at ``start``..``end`` stops at a mark its last word carries, and
    the next one (at ``following``) goes on with a word straight after."""
    if folded[end:following].strip("!?") or not _GOES_ON.match(folded, end):
        return False
    words = folded[start:end].split()
    return bool(words) and _LETTERS_AND_DIGITS.fullmatch(words[-1]) is not None


#: a sentence that completes the value the one before gave
_WHOLE = re.compile(
    r"\b(?:whole|rest|full|complete|all together|tudo|resto|inteir[oa]|complet[oa])\b"
)
#: a sentence that corrects the value the one before gave: "wifi pass is Bolacha2020... no
#: sorry that's the old one, it's Bolacha2023 now", "... é 4471. Quer dizer, 4417", "...
#: 12-24-36... não, isso é o da mala, o do cacifo é 9-18-27"; not one that only opens with an
#: apology or a pause ("Sorry, we land around 2230")
_CORRECTS = re.compile(
    r"[ ]*(?:(?:no|nope|nao|oops|opa|ops)[ ,]+(?:sorry|wait|desculpa|perdao|espera|pera"
    r"|that'?s|thats|that was|this is|isso e|isso era|ess[ae] e|ess[ae] era|est[ae] e)"
    r"|(?:(?:sorry|desculpa|perdao)[ ,]+)?(?:i mean|correction|typo|my bad|scratch that"
    r"|wrong one|quer dizer|digo|alias|errei|engano|corrigindo)"
    r"|(?:wait|actually|espera|na verdade)[ ,]+(?:it'?s|its|that'?s|e|eh|era))\b"
)


def sentence_siblings(folded: str, found: list[Span]) -> list[Span]:
    """The other values of a sentence that gave a code, PIN or password: "the door code is
    2468 now instead of 1357", "changed it from hunter2 to Hunter3!" (the old value is a
    secret too: people reuse them); and of the sentence after it that completes or corrects
    it ("... is 1122. No wait, 2211.")."""
    spans: list[Span] = []
    before: set[str] = set()
    starts = sorted((span.start, span.kind) for span in found)
    for start, end in _sentences(folded):
        first, last = bisect_left(starts, (start, "")), bisect_left(starts, (end, ""))
        kinds = {kind for _at, kind in starts[first:last]}
        sentence = folded[start:end]
        if _WHOLE.search(sentence) or _CORRECTS.match(sentence):
            kinds |= before  # "... the end of the combo is 22. so the whole thing is 17-04-22"
        before = kinds
        if kinds & {"code", "pin"}:
            kind = "pin" if "pin" in kinds else "code"
            spans += [
                Span(start + m.start(), start + m.end(), kind)
                for m in CODE_NUMBER.finditer(sentence)
                if not NOT_SIBLING.search(words_before(sentence, m.start()))
            ]
        if "password" in kinds:
            spans += [
                Span(start + m.start(), start + m.end(), "password")
                for m in MIXED.finditer(sentence)
                if not NOT_MIXED.fullmatch(m.group(0))
            ]
    return spans


#: a sentence that gives the value the one before named: "... my bank card PIN. It is 4 8 1
#: 7.", "o código do portão? é 2580", "my netflix password. Mine: Rainbow77"
_IT_IS = re.compile(
    r"[ ]*(?:(?:and|so|e|entao|now|agora)[ ,]+)?(?:(?:ah|oh|hmm|ok|okay|wait|no|nao|well|bem"
    r"|pois|i know|i remember|ja sei|lembrei|actually|na verdade)[ ,]+){0,3}"
    r"(?:(?:i think|i guess|i believe|pretty sure"
    r"|acho que|penso que|creio que)[ ]+)?(?:(?:it|that|this|the number|the new one"
    r"|o numero|a nova|o novo|ela|ele|mine|ours|a minha|o meu|a nossa|o nosso)"
    r"(?:[ ]+(?:is|was|e|eh|era)(?:[ ]+now|[ ]+agora)?|['’]s)?|its|thats|it's|that's|e|eh|sao"
    r"|fica|ficou|passa a ser|passou a ser)"
    r"[ ]*:?[ ]+"
)


#: a code sent by text as it is written, in two groups of three: "448 219"
_GROUPED = re.compile(r"\d{3}[ -]\d{3}(?![\w.,/:-]?\d)")


#: a sentence that says which password was chosen, after one that named it: "the bank wants
#: a new password. I chose bluebell cottage"; its value runs to the end of its clause
_CHOSE = re.compile(
    r"[ ]*(?:(?:so|and|e|entao)[ ,]+)?(?:i|we|eu|nos)?[ ]*(?:chose|picked|set it to|made it"
    r"|changed it to|escolhi|mudei para|mudei-a para)[ ]+"
    r"(?!(?:to|not|a|an|the|it|one|something|another|nothing|uma?|o|a|outra|outro|algo|nada"
    r"|nao|to the|para)\b)(?P<value>[^,;.!?]+)"
)


#: the words for a number that is a secret, whose value the next sentence may give
_NAMES_NUMBER = re.compile(
    r"\b(?:pin|pins|codes?|keycodes?|codigos?|combinations?|combinacao|combo|passcode|senha|snh"
    r"|cvv2?|cvc|puk|otp)\b"
)


#: after a key asked alone, the answer may start with its value: "the PIN? 7 3 1 9, same as
#: the old one", "a senha do wifi? girassol88, como sempre"
_STRAIGHT_AWAY = re.compile(r"[ ]*")


def _opening(
    sentence: str, *, asked: bool, found: bool = True, set_it: bool = False
) -> re.Match[str] | None:
    """Where the value starts in a sentence after the one that named its key: after "it is",
    "é", "fica"; after "found it," when that one named a code one signs in with (``found``);
    after "I set it to" when it named a code that is set (``set_it``); or at once, when that
    one was the key alone, asked (``asked``)."""
    return (
        _IT_IS.match(sentence)
        or (FOUND_IT.match(sentence) if found else None)
        or (SET_IT.match(sentence) if set_it else None)
        or (_STRAIGHT_AWAY.match(sentence) if asked else None)
    )


def _asked_alone(folded: str, start: int, end: int) -> bool:
    """Whether the sentence at ``start``..``end`` is a key alone with its question mark
    ("the PIN?", "a senha do wifi?"): the one after it answers."""
    return folded.startswith("?", end) and LABEL_LINE.match(folded[start:end].strip()) is not None


def _number_after(start: int, sentence: str, kind: str, before: str, *, asked: bool) -> list[Span]:
    """The number that opens ``sentence`` after the one ``before`` it named its key."""
    set_it = names_set_code(before)
    opening = _opening(
        sentence, asked=asked, found=set_it or names_sign_in_code(before), set_it=set_it
    )
    if opening is None:
        return []
    found = (
        DIGIT_RUN.match(sentence, opening.end())
        or _GROUPED.match(sentence, opening.end())
        or CODE_NUMBER.match(sentence, opening.end())
    )
    if found is None or (
        YEAR.fullmatch(found.group(0)) and re.search(r"\w", sentence[found.end() :])
    ):
        return []  # "I lost my card. It was 2019 when I got it"
    return [Span(start + found.start(), start + found.end(), kind)]


#: words that make what was chosen a clause, not a password
_NOT_CHOSEN = frozenset(
    "because since as so then and but for with until till ate para pra que porque pois sem"
    " com por quando when while".split()
)


def _chosen_value(value: str) -> bool:
    """Whether what was chosen reads as a password: a word with a digit or a symbol, or two to
    four words none of them a sentence's small word ("bluebell cottage"; not "Bitwarden",
    "to write it down")."""
    words = value.split()
    if set(words) & _NOT_CHOSEN or words[0].endswith(("ar", "er", "ir")):
        return False  # "I chose Bitwarden because it's free", "Escolhi esperar até segunda"
    if any(any(c.isdigit() or not (c.isalnum() or c in "'’") for c in word) for word in words):
        return True
    return 2 <= len(words) <= 4 and not set(words) & SENTENCE_WORDS


#: "Ficou Gato Preto 21": what a password became, its words and a number to the clause's end
_BECAME = re.compile(r"[ ]*(?:fica|ficou|passa a ser|passou a ser)[ ]+(?P<value>[^,;.!?]+)")


def _became_value(value: str) -> bool:
    """Whether what a password became (as written) reads as one: two to four words, a capital
    first, a digit, none of them a sentence's small word ("Gato Preto 21"; not "para amanhã")."""
    words, digit = value.lower().split(), any(map(str.isdigit, value))
    small = set(words) & (_NOT_CHOSEN | SENTENCE_WORDS)
    return 2 <= len(words) <= 4 and value[0].isupper() and digit and not small


def _password_after(start: int, sentence: str, text: str, *, asked: bool) -> list[Span]:
    chose = _CHOSE.match(sentence)
    if chose is not None and _chosen_value(chose.group("value")):
        return [Span(start + chose.start("value"), start + chose.end("value"), "password")]
    became = _BECAME.match(sentence)
    if became and _became_value(text[start + became.start("value") : start + became.end("value")]):
        return [Span(start + became.start("value"), start + became.end("value"), "password")]
    opening = _opening(sentence, asked=asked)
    value = re.match(r"[^\s,;]+", sentence[opening.end() :]) if opening else None
    if opening is None or value is None:
        return []
    word = value.group(0).rstrip(".,")
    has_mark = any(c.isdigit() or not c.isalnum() for c in word)
    if len(word) < 4 or not has_mark or not any(c.isalpha() for c in word):
        return []  # "It is longer now", "It is 10:30"; a number is for the rule of numbers
    if NOT_MIXED.fullmatch(word):
        return []  # "It is 12h now"
    return [Span(start + opening.end(), start + opening.end() + len(word), "password")]


def spoken_secrets(folded: str, text: str = "") -> list[Span]:
    """Every value of the folded text ``folded`` that the rules above find, unordered;
    ``text`` is the text as written (the rules that need its capitals read it)."""
    spans = seed_spans(folded)
    if CODE_TOPIC.search(folded) or CARD_WORD.search(folded):
        spans += [Span(*m.span(), code_kind(folded)) for m in SLOW_DIGITS.finditer(folded)]
    topic, number_named, password_named, kind, asked = False, False, False, "code", False
    previous = ""
    service = "porta" in folded and names_service(folded)
    for start, end in _sentences(folded):
        sentence = folded[start:end]
        alone = ONLY_NUMBER.match(sentence)
        if alone is not None and topic:
            spans.append(Span(start + alone.start("value"), start + alone.end("value"), "code"))
        if number_named:
            spans += _number_after(start, sentence, kind, previous, asked=asked)
            spans += code_parts(start, sentence, kind, before=previous)
        if password_named:
            spans += _password_after(start, sentence, text, asked=asked)
        number_named = _NAMES_NUMBER.search(sentence) is not None
        password_named = names_password(sentence)
        asked = _asked_alone(folded, start, end)
        previous = sentence
        named = bool(CODE_TOPIC.search(sentence) or CARD_WORD.search(sentence))
        # "four... seven... one... nine." are sentences of a word each: the topic goes on
        if named:
            kind = code_kind(sentence)
        topic = named or (topic and len(sentence.split()) <= 2)
        spans += wallet_spans(start, sentence)
        spans += code_spans(start, sentence, service=service)
        spans += card_spans(start, sentence)
        spans += password_spans(start, sentence, text)
        spans += answer_spans(start, sentence)
        spans += pattern_spans(start, sentence)
        spans += full_number_spans(start, sentence)
    return spans
