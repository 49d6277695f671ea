"""The secret detector: where a text carries a password, PIN, code, card, account, id, key or
seed phrase.

One detector for every path that writes what people said (the door of a turn,
:mod:`bot.memory.secrets.door`; memory writes, automatic extraction, mirrored files,
distillation, the identity changelog): :func:`find_secrets` gives the :class:`Span` of each
value with its kind, :func:`redact_secrets` replaces each by a marker that names the kind
(``[secret withheld: pin]``, :func:`marker`), and :func:`secret_kind` / :func:`looks_secret`
answer for a whole text. A marker is never taken for a secret, so redacting twice changes
nothing (:data:`MARKERS`).

Four parts find values; ``bench/policy_accuracy.py`` measures detect-secrets' alone and the
other three (the project's own rules) together:

- detect-secrets' plugins (:mod:`bot.memory.secrets.library`): vendor keys and tokens,
  private keys, high-entropy strings;
- the values that prove themselves (:mod:`bot.memory.secrets.values`): key formats
  (``sk-…``, ``ghp_…``), numbers that pass their check digits (cards by Luhn, CPF and CNPJ,
  IBAN by mod 97), long or mixed-class tokens;
- the conversational rules, English and Portuguese: phrases that name a credential and give
  its value ("pw for the router is …", "coloquei X como senha", "cvv 737", "agência 1234 conta
  98765-4", "acct no. 0098123456", "the wifi password, which nobody remembers, is …":
  :mod:`bot.memory.secrets.key_phrases`, with the value after its key word in
  :mod:`~bot.memory.secrets.after_keys`), a value on the line after the words that ask for it
  ("my password is below.\\nhunter2!", :mod:`bot.memory.secrets.carry`), and secrets as they
  are said in chat, read a sentence at a time (:mod:`bot.memory.secrets.speech`, with the
  rules of each kind: :mod:`~bot.memory.secrets.codes` (with
  :mod:`~bot.memory.secrets.spoken_digits`, :mod:`~bot.memory.secrets.lock_numbers` and
  :mod:`~bot.memory.secrets.code_words`), :mod:`~bot.memory.secrets.cards`,
  :mod:`~bot.memory.secrets.passwords` (with :mod:`~bot.memory.secrets.ways_in`,
  :mod:`~bot.memory.secrets.sign_in_pairs`, :mod:`~bot.memory.secrets.quoted_passwords` and
  :mod:`~bot.memory.secrets.password_words`),
  :mod:`~bot.memory.secrets.seeds`). The phrase tables are in
  :mod:`bot.memory.secrets.phrase_patterns`, built from the words of
  :mod:`bot.memory.secrets.key_words`;
- what is pasted from a machine: env and config lines (``DB_PASSWORD=...``, ``"api_token":
  "..."``) and the password a command line carries (``mysql -pX``,
  :mod:`bot.memory.secrets.config`).

Here, beside the entry points: the folding the rules read (:func:`fold_in_place`: lower case,
no accents, offsets kept), the value on the line after one that announces it
(:func:`announces_value`), and what is dropped from what the parts find: a value inside a
marker, and a key or password inside a public value (:mod:`bot.memory.secrets.public`).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from functools import lru_cache
from itertools import pairwise

from bot.memory.secrets import key_words, phrase_patterns
from bot.memory.secrets.carry import asked_kind, bare_value, key_kind
from bot.memory.secrets.config import config_secrets
from bot.memory.secrets.key_phrases import phrase_spans
from bot.memory.secrets.library import library_secrets
from bot.memory.secrets.public import public_spans
from bot.memory.secrets.speech import sentence_siblings, spoken_secrets
from bot.memory.secrets.values import Span, self_evident

__all__ = [
    "KINDS",
    "MARKERS",
    "WITHHELD",
    "Span",
    "announces_value",
    "find_secrets",
    "fold_in_place",
    "library_secrets",
    "looks_secret",
    "marker",
    "own_secrets",
    "redact_secrets",
    "secret_kind",
]

#: the kinds a value is found as, and named as in its marker
KINDS = key_words.KINDS
#: what a secret is replaced by where its kind is not said (a whole sentence withheld)
WITHHELD = "[secret withheld]"
#: every marker, of a kind or not: what was withheld once is never found again
MARKERS = re.compile(r"\[secret withheld(?:: [a-z]+)?\]")


def marker(kind: str) -> str:
    """What a value of ``kind`` is replaced by: ``[secret withheld: pin]``."""
    return f"[secret withheld: {kind}]"


_WHITESPACE = str.maketrans("\t\r\f\v\xa0", "     ")


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    if char.isspace():
        return "\n" if char == "\n" else " "
    if char in "’‘":
        return "'"
    lower = char.lower()
    if len(lower) != 1:
        lower = char
    base = "".join(c for c in unicodedata.normalize("NFKD", lower) if not unicodedata.combining(c))
    return base if len(base) == 1 else lower


def fold_in_place(text: str) -> str:
    """Lower case, no accents, one character for one, so offsets stay the original's."""
    if text.isascii():
        return text.lower().translate(_WHITESPACE)
    return "".join(map(_fold_char, text))


#: an emoji set around a value as decoration ("wifi pass 👉 coconut_palm 👈"), with its joiners
#: and variation selectors; not those that name a value themselves ("🔑 Lisboa#22", "🏧 5519")
_PICTOGRAPH = re.compile(
    r"[\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d\U0001f000-\U0001f3e6\U0001f3e8-\U0001f50f"
    r"\U0001f514-\U0001faff]"
)


def _without_pictographs(folded: str) -> str:
    """``folded`` with each decorative emoji a space (offsets kept), so the rules read the
    words on either side of it as they would read them written plainly."""
    if folded.isascii():
        return folded
    return _PICTOGRAPH.sub(" ", folded)


_LINE = re.compile(r"[^\n]*")
#: a line that only opens or closes a block of code
_FENCE = re.compile(r"[ ]*(?:```|~~~)[\w+-]*[ ]*")


def _lines(folded: str) -> list[tuple[int, str]]:
    """The non-empty lines of ``folded`` and their offsets, but a fence that opens a block of
    code (a value announced before it is on the line after it); one that closes it is kept."""
    lines: list[tuple[int, str]] = []
    inside = False
    for m in _LINE.finditer(folded):
        fence = _FENCE.fullmatch(m.group(0)) is not None
        inside ^= fence
        if m.group(0).strip() and not (fence and inside):
            lines.append((m.start(), m.group(0)))
    return lines


def _next_lines(folded: str, found: list[Span]) -> list[Span]:
    """A line that announces a value ("senha:", "my password is below.") makes the next
    non-empty line a secret (a fence that opens a block of code is passed over, one that
    closes it is never a value nor announces one); one that asks for a value ("the code for
    the gate", "new pin") makes it a secret when it is a bare value of that kind ("four four
    eight one"). A line that gave its value already (``found``, and the markers of values
    withheld before) asks for nothing."""
    spans: list[Span] = []
    for (start, line), (next_start, next_line) in pairwise(_lines(folded)):
        if any(start <= span.start < start + len(line) for span in found):
            continue
        if _FENCE.fullmatch(line) or _FENCE.fullmatch(next_line):
            continue
        lead = len(next_line) - len(next_line.lstrip())
        if announces_value(line):
            end = next_start + len(next_line.rstrip())
            spans.append(Span(next_start + lead, end, key_kind(line)))
            continue
        if (carried := _carried(line, next_line, next_start)) is not None:
            spans.append(carried)
    return spans


def _carried(asking: str, then: str, at: int) -> Span | None:
    """The value ``then`` (at offset ``at``) gives when it is a bare value of the kind
    ``asking`` names while leaving its value out."""
    asked = asked_kind(asking)
    value = bare_value(then, asked) if asked is not None else None
    if asked is None or value is None:
        return None
    return Span(at + value[0], at + value[1], asked)


#: a sentence of a line, its end marks with it (a mark inside a word, as in a link or
#: "e.g.", ends nothing)
_SENTENCE = re.compile(r"(?:[^.!?]|[.!?]+(?=\S))+(?:[.!?]+|$)")


def _next_sentences(folded: str, found: list[Span]) -> list[Span]:
    """As :func:`_next_lines` within a line: a sentence that asks for a value ("The garage
    door wants a code.", "My bank PIN.") makes the next one a secret when it is a bare value
    of that kind, led into or not ("Remember that it is 4471.", "4471, remember it.")."""
    spans: list[Span] = []
    for start, line in _lines(folded):
        sentences = [
            (start + m.start() + len(m.group(0)) - len(m.group(0).lstrip()), m.group(0).lstrip())
            for m in _SENTENCE.finditer(line)
        ]
        for (at, sentence), (next_at, following) in pairwise(sentences):
            if any(at <= span.start < next_at + len(following) for span in found):
                continue
            carried = _carried(sentence, following, next_at)
            if carried is not None and _one_word(folded[carried.start : carried.end]):
                spans.append(carried)
    return spans


def _one_word(value: str) -> bool:
    """Whether a value carried from the sentence before is one word with a digit in it
    ("4471", "sunflower88"): a sentence after another goes on talking far more often than a
    line after a label does ("Ficou para amanhã às 21")."""
    return " " not in value.strip() and any(c.isdigit() for c in value)


def announces_value(line: str) -> bool:
    """Whether ``line`` only announces a value to come ("my password is below.", "senha do
    email:"): a line that says nothing itself, and warns that the next one is a secret."""
    folded = fold_in_place(line.strip())
    return bool(
        phrase_patterns.ANNOUNCE_LINE.search(folded) or phrase_patterns.LABEL_LINE.match(folded)
    )


def _merged(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if span.end <= span.start:
            continue
        if merged and span.start <= merged[-1].end:
            last = merged[-1]
            merged[-1] = Span(last.start, max(last.end, span.end), last.kind)
        else:
            merged.append(span)
    return merged


def _outside_markers(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` without those that start inside a marker (:data:`MARKERS`), so redacted
    text reads as clean and redacting twice changes nothing."""
    if "[secret withheld" not in text:
        return spans
    return _starting_outside(spans, [m.span() for m in MARKERS.finditer(text)])


def _starting_outside(spans: list[Span], regions: list[tuple[int, int]]) -> list[Span]:
    """``spans`` without those that start inside one of ``regions`` (in order, apart)."""
    kept = []
    for span in spans:
        # the last region that starts at or before the span: does the span start inside it?
        index = bisect_right(regions, span.start, key=lambda region: region[0]) - 1
        if index < 0 or span.start >= regions[index][1]:
            kept.append(span)
    return kept


#: the kinds of value a public one may be taken for: a card, PIN or account is never public
_PUBLIC_KINDS = frozenset({"key", "password"})


def _outside_public(text: str, spans: list[Span]) -> list[Span]:
    """``spans`` without those inside a public key, an address, a hash or a UUID
    (:mod:`bot.memory.secrets.public`): "backup drive UUID is 1d9acbce-4045-..."."""
    if not spans:
        return spans
    public: list[tuple[int, int]] = []
    for start, end in sorted(public_spans(text)):
        if public and start <= public[-1][1]:
            public[-1] = (public[-1][0], max(end, public[-1][1]))
        else:
            public.append((start, end))
    others = [span for span in spans if span.kind not in _PUBLIC_KINDS]
    eligible = [span for span in spans if span.kind in _PUBLIC_KINDS]
    return others + _starting_outside(eligible, public)


def _without_marker_words(text: str, folded: str) -> str:
    """``folded`` with the words of each marker blanked (its brackets kept, offsets too): a
    marker names a kind ("[secret withheld: password]"), and that word is no key for the
    rules that read the words around a value ("the answer to 'city you were born' is [...]"
    names no password), so redacting twice changes nothing."""
    if "[secret withheld" not in text:
        return folded
    parts: list[str] = []
    done = 0
    for found in MARKERS.finditer(text):
        start, end = found.span()
        parts += [folded[done:start], "[", " " * (end - start - 2), "]"]
        done = end
    return "".join([*parts, folded[done:]])


def own_secrets(text: str) -> list[Span]:
    """The values the project's own rules find (all but detect-secrets'), unordered."""
    spans = self_evident(text) + config_secrets(text)
    folded = _without_marker_words(text, _without_pictographs(fold_in_place(text)))
    spans += spoken_secrets(folded, text)
    if key_words.KEY_ANYWHERE.search(folded) or "@" in folded:
        spans += phrase_spans(text, folded)
    given = [Span(*m.span(), "marker") for m in MARKERS.finditer(text)]
    if "\n" in folded:
        spans += _next_lines(folded, spans + given)
    if key_words.KEY_ANYWHERE.search(folded):
        spans += _next_sentences(folded, spans + given)
    spans = _outside_public(text, spans)
    if spans:
        spans += sentence_siblings(folded, spans)
    return spans


@lru_cache(maxsize=64)
def find_secrets(text: str) -> tuple[Span, ...]:
    """Every secret value in ``text``, in order, overlapping finds merged.

    A turn asks this of its message several times (the door, the write policy, its candidate
    facts, the episode it is kept as): the answer is kept for the last few texts."""
    spans = own_secrets(text) + _outside_public(text, library_secrets(text))
    return tuple(_merged(_outside_markers(text, spans)))


def redact_secrets(text: str, replacement: str | None = None) -> str:
    """``text`` with every secret value replaced by the marker of its kind (or by
    ``replacement``); the rest is left as it is."""
    spans = find_secrets(text)
    if not spans:
        return text
    parts: list[str] = []
    done = 0
    for span in spans:
        parts += [text[done : span.start], replacement or marker(span.kind)]
        done = span.end
    parts.append(text[done:])
    return "".join(parts)


def secret_kind(text: str) -> str | None:
    """What kind of secret ``text`` carries first, or None."""
    spans = find_secrets(text)
    return spans[0].kind if spans else None


def looks_secret(text: str) -> bool:
    """True when ``text`` carries a password, key, token, card, account or id number."""
    return bool(find_secrets(text))
