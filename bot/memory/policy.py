"""The write policy: which sentences deserve long-term memory, and under which category.

A rule layer, no model. Each candidate sentence is first checked for secrets (passwords, API
keys, tokens, card numbers: always rejected, see :mod:`bot.memory.secrets.detector`), then for
trivia (``ok``, ``valeu``, ``kkkk``, emojis, questions that state nothing), then scored against
per-language pattern tables (:mod:`bot.memory.policy_rules`) for the five durable categories
and for ephemeral markers ("right now", "estou almoçando"). Matching runs on accent-folded
lower-case text, so "almoçando" and "almocando" are one word.

The tables are plain data; adding a language means adding its tables, not code. Every regex is
compiled once, at import. :func:`fold`, :func:`looks_secret` and :func:`secret_kind` are
importable from here too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from bot.memory.base import Category
from bot.memory.policy_rules import EPHEMERAL, RULES, fold
from bot.memory.prefilter import PatternSet
from bot.memory.remember_requests import asked_to_remember
from bot.memory.secrets.detector import (
    WITHHELD,
    Span,
    announces_value,
    find_secrets,
    looks_secret,
    redact_secrets,
    secret_kind,
)
from bot.memory.sentences import sentence_spans

__all__ = [
    "FILLER_WORDS",
    "WITHHELD",
    "Span",
    "Verdict",
    "announces_value",
    "classify",
    "find_secrets",
    "fold",
    "guess_language",
    "lines_with_secrets",
    "looks_secret",
    "redact_secrets",
    "secret_kind",
    "split_candidates",
    "withhold_sentences",
]

#: words that say which language a sentence is in ("to", "no", "do", "as" are in both)
STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "the an is are was were i i'm my our we you your it it's this that of and with for"
        " on at from have has don't can't will would".split()
    ),
    "pt": frozenset(
        "o os um uma e eh de da dos das em na nos nas com pra para pro eu meu minha"
        " nosso nossa voce vc nao que tem ta tou esta estou sao foi".split()
    ),
}

#: a message made only of these words (and laughter) says nothing worth keeping
FILLER_WORDS = frozenset(
    """
    ok okay okk k kk yes yeah yep yup no nope nah sure thanks thank you thx ty tks much so very
    lot a lots cheers great nice cool awesome perfect fine good morning night evening afternoon
    hi hello hey bye see ya later cya yo alright right got it understood sounds gotcha indeed
    wow oh ah omg lol lmao rofl haha hahaha hehe np welcome please sorry oops hmm hm mhm uh um
    amazing love lovely true exactly totally absolutely and you too the same to all well done
    sim nao nada valeu vlw obrigado obrigada brigado brigada obg muito muita mto show top
    massa legal beleza blz bom boa dia tarde noite oi ola opa eai e ai tchau falou flw ate mais
    logo entendi entendido certo claro com certeza tranquilo tranquila fechado pode deixar
    isso ai tudo bem bom tb tbm tambem voce vc pra ti pra voce perfeito otimo otima demais
    nossa uau eita vixe caramba poxa puxa hum hmmm aham uhum tmj rs rsrs kkk kkkk de nada
    desculpa foi mal amei lindo linda que the
    """.split()
)
LAUGH = r"(?:k{2,}|(?:ha){2,}h?|(?:he){2,}h?|(?:hi){2,}h?|(?:rs){1,}|(?:ks){2,}k?|(?:hua)+)"
INTERROGATIVES = (
    r"^(?:what|when|where|who|whom|whose|why|how|which|can you|could you|would you|will you"
    r"|do you|did you|does|is it|are you|is there|should i|shall we|any idea"
    r"|o que|oq|que horas|quando|onde|cade|quem|por que|porque|pq|como|qual|quais|quanto"
    r"|voce (?:pode|sabe|acha|lembra)|vc (?:pode|sabe|acha|lembra)|sera que|tem como|sabe)\b"
)
NOTE_MARKERS = (
    r"\b(?:remember (?:that|this)|please remember|note that|make a note|for the record"
    r"|just so you know|fyi|keep in mind|lembra que|lembre que|lembre-se|anota (?:ai|que|isso)"
    r"|guarda isso|so pra constar|pra voce saber|fica sabendo)\b"
)

#: a category wins outright from this score, even against ephemeral markers
STRONG = 2.0
#: below this a statement without any pattern is too thin to keep
MIN_WORDS_FOR_FALLBACK = 6


@dataclass(frozen=True, slots=True)
class Verdict:
    """The policy's decision for one candidate sentence."""

    category: Category | None  # None = rejected
    reason: str
    confidence: float

    @property
    def accepted(self) -> bool:
        return self.category is not None


@dataclass(frozen=True, slots=True)
class _Compiled:
    """The rules of one table, every label's (the five categories and "ephemeral") in one
    :class:`~bot.memory.prefilter.PatternSet`, so a sentence's needles are looked for once: each
    pattern's label and weight, in the table's order."""

    patterns: PatternSet
    labels: tuple[str, ...]
    weights: tuple[float, ...]


def _compile(tables: dict[str, dict[str, list[tuple[str, float]]]]) -> _Compiled:
    merged: dict[str, list[tuple[str, float]]] = {}
    for by_label in tables.values():
        for label, rules in by_label.items():
            merged.setdefault(label, []).extend(rules)
    rows = [(label, rule) for label, rules in merged.items() for rule in rules]
    return _Compiled(
        PatternSet([pattern for _label, (pattern, _weight) in rows]),
        tuple(label for label, _rule in rows),
        tuple(weight for _label, (_pattern, weight) in rows),
    )


def _with_ephemeral(lang: str) -> dict[str, list[tuple[str, float]]]:
    return {**RULES.get(lang, {}), "ephemeral": EPHEMERAL.get(lang, [])}


_LANGUAGES = tuple(dict.fromkeys([*RULES, *EPHEMERAL]))
_RULES_BY_LANG = {lang: _compile({lang: _with_ephemeral(lang)}) for lang in _LANGUAGES}
#: a sentence whose language is unsure meets every language's rules
_ALL_RULES = _compile({lang: _with_ephemeral(lang) for lang in _LANGUAGES})
#: on equal scores the specific categories win over the generic "fact"
_TIE_ORDER: tuple[Category, ...] = ("preference", "decision", "skill", "error", "fact")


def guess_language(words: list[str]) -> str | None:
    """The language whose stopwords clearly dominate ``words``, or None when unsure."""
    counts = {lang: sum(word in stop for word in words) for lang, stop in STOPWORDS.items()}
    ranked = sorted(counts.items(), key=lambda item: item[1], reverse=True)
    if ranked[0][1] > 0 and ranked[0][1] > ranked[1][1]:
        return ranked[0][0]
    return None


_WORD = re.compile(r"[a-z0-9']+")
_LAUGH = re.compile(LAUGH)
_INTERROGATIVE = re.compile(INTERROGATIVES)
_NOTE = re.compile(NOTE_MARKERS)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def _touches(secrets: Sequence[Span], start: int, end: int) -> bool:
    """Whether ``text[start:end]`` holds part of one of ``secrets`` (which
    :func:`find_secrets` returns ordered and apart, so their ends are ordered too)."""
    first = bisect_right(secrets, start, key=lambda span: span.end)
    return first < len(secrets) and secrets[first].start < end


def split_candidates(text: str) -> list[str]:
    """The sentences of a message worth classifying (:mod:`bot.memory.sentences`),
    bullets stripped, fragments without a letter or digit dropped, and every sentence that
    holds part of a secret dropped too. Secrets are found in the whole message first, so a
    value on the line after its keyword ("my password is below.\nhunter2!") goes as well,
    and so does the line that announced it."""
    secrets = find_secrets(text)
    candidates = []
    for start, end, _after in sentence_spans(text):
        if _touches(secrets, start, end):
            continue
        sentence = _BULLET.sub("", text[start:end]).strip()
        if any(ch.isalnum() for ch in sentence) and not announces_value(sentence):
            candidates.append(sentence)
    return candidates


def withhold_sentences(text: str, marker: str = WITHHELD) -> str:
    """``text`` with every sentence that holds part of a secret replaced by ``marker``;
    separators and the other sentences are kept as they are."""
    secrets = find_secrets(text)
    if not secrets:
        return text
    parts: list[str] = []
    for start, end, after in sentence_spans(text):
        parts.append(marker if _touches(secrets, start, end) else text[start:end])
        parts.append(text[end:after])
    return "".join(parts)


def lines_with_secrets(text: str) -> list[str]:
    """The lines of ``text`` (stripped) that hold part of a secret, the value on the line
    after an announcing line included."""
    secrets = find_secrets(text)
    flagged: list[str] = []
    offset = 0
    for line in text.split("\n"):
        if _touches(secrets, offset, offset + len(line)):
            flagged.append(line.strip())
        offset += len(line) + 1
    return flagged


_NONE = (0.0, "")


def _scores(folded: str, rules: _Compiled) -> dict[str, tuple[float, str]]:
    """Each label's total weight of matching rules, and the words that matched its weightiest
    (the first of equals); a label nothing matched is absent."""
    totals: dict[str, float] = {}
    weightiest: dict[str, tuple[float, str]] = {}
    regexes = rules.patterns.regexes
    for index in rules.patterns.candidates(folded):
        match = regexes[index].search(folded)
        if match:
            label, weight = rules.labels[index], rules.weights[index]
            totals[label] = totals.get(label, 0.0) + weight
            if weight > weightiest.get(label, _NONE)[0]:
                weightiest[label] = (weight, match.group(0).strip())
    return {label: (total, weightiest.get(label, _NONE)[1]) for label, total in totals.items()}


def _is_trivial(words: list[str]) -> bool:
    return all(word in FILLER_WORDS or _LAUGH.fullmatch(word) for word in words)


def _is_question(raw: str, folded: str) -> bool:
    """Ends with "?", or opens with a question word and is not a "when X, do Y" clause."""
    if raw.rstrip().endswith("?"):
        return True
    return bool(_INTERROGATIVE.match(folded)) and ", " not in folded


def _confidence(score: float, ephemeral: float) -> float:
    return round(max(0.3, min(0.95, 0.45 + 0.12 * score - 0.08 * ephemeral)), 2)


def classify(text: str) -> Verdict:
    """Classify one candidate sentence as a durable category, or reject it with a reason."""
    kind = secret_kind(text)
    if kind:
        return Verdict(None, f"rejected: secret ({kind})", 0.99)
    folded = fold(text)
    words = _WORD.findall(folded)
    if not words:
        return Verdict(None, "rejected: trivial (no words)", 0.95)
    if _is_trivial(words):
        return Verdict(None, "rejected: trivial", 0.9)

    lang = guess_language(words)
    scores = _scores(folded, _RULES_BY_LANG[lang] if lang else _ALL_RULES)
    best: Category = max(_TIE_ORDER, key=lambda label: scores.get(label, _NONE)[0])
    best_score, evidence = scores.get(best, _NONE)
    ephemeral, ephemeral_evidence = scores.get("ephemeral", _NONE)
    noted = bool(_NOTE.search(folded)) or asked_to_remember(text) is not None

    if _is_question(text, folded) and not noted:
        if ephemeral >= 1.5 and best_score < STRONG:
            return Verdict(None, f"rejected: ephemeral ('{ephemeral_evidence}')", 0.7)
        return Verdict(None, "rejected: trivial (a question states nothing)", 0.8)
    if best_score >= STRONG and best_score >= ephemeral:
        return Verdict(best, f"{best}: '{evidence}'", _confidence(best_score, ephemeral))
    if ephemeral > 0:
        return Verdict(None, f"rejected: ephemeral ('{ephemeral_evidence}')", 0.75)
    if best_score > 0:
        return Verdict(best, f"{best}: '{evidence}'", _confidence(best_score, 0))
    if noted:
        return Verdict("fact", "fact: asked to remember", 0.6)
    if len(words) >= MIN_WORDS_FOR_FALLBACK and not _is_question(text, folded):
        return Verdict("fact", "fact: plain statement", 0.35)
    return Verdict(None, "rejected: trivial (too thin to keep)", 0.6)
