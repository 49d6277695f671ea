"""Seed and recovery phrases as people say them in chat, for
:mod:`bot.memory.policy_secret_speech`: twelve words or more after their name, on the same line
or the next, quoted or not; numbered words ("1 ladder 2 mercy ..."); half a phrase, named ("first
half of the backup words: ..."); and twelve words or more with none of a sentence's small words
beside a wallet ("the bitcoin wallet restores with tiger maple ...").
"""

from __future__ import annotations

import re
from functools import cache

from bot.memory.policy_secret_values import Span

__all__ = ["SENTENCE_WORDS", "seed_spans", "wallet_spans"]

#: a seed phrase's names, then twelve words or more
_SEED_NAME = (
    r"(?:seed(?: phrase| words)?|recovery (?:phrase|words|seed)|mnemonic(?: phrase)?"
    r"|backup (?:phrase|words)|wallet (?:phrase|words|seed)|secret recovery phrase"
    r"|\d{2}[- ]words?(?: backup| phrase)?|frase (?:de recuperacao|semente|de backup)"
    r"|palavras(?: de recuperacao| da carteira| de backup)?|\d{2} palavras)"
)


_SEED = re.compile(
    rf"\b{_SEED_NAME}\b[^\n:]{{0,40}}?(?::|\bis\b|\bare\b|\be\b|\bsao\b|['’]s\b|-|\n)[ ]*\n?[ ]*"
    r"[\"'“‘«(\[]?(?P<value>[a-z]{3,8}(?:[ ,]+[a-z]{3,8}){11,23})\b"
)


#: words that a sentence has and a seed phrase of the BIP 39 lists has not
_MIN_SEED_WORDS = 12


_NOT_SEED = frozenset(
    "the and that this with from your have will what when where which are was were not you"
    " que com para pra por uma meu minha nao sim isso esse essa dos das nos nas mas".split()
)


SENTENCE_WORDS = _NOT_SEED | frozenset(
    "a an on in at of to is it my our its be by or for as written saved kept stored card paper"
    " drawer somewhere same usual um uma no na em de do da o os as e".split()
)


#: twelve words or more, numbered: "1 ladder 2 mercy 3 ozone ...", "1. abandon 2. ability"
_NUMBERED_WORDS = re.compile(
    r"(?<!\w)1[.)]?[ ]+[a-z]{3,8}(?:[ ,]+\d{1,2}[.)]?[ ]+[a-z]{3,8}){11,23}\b"
)


#: half of a seed phrase, named: "first half of the backup words: harbor clutch fiscal ..."
_SEED_PART = re.compile(
    rf"\b{_SEED_NAME}\b[^\n:]{{0,40}}?(?::|\bis\b|\bare\b|\be\b|\bsao\b|-)[ ]*"
    r"[\"'“‘«(\[]?(?P<value>[a-z]{3,8}(?:[ ,]+[a-z]{3,8}){5,10})\b"
)


#: a phrase said aloud, as a voice note is written down: its words broken by a pause ("drip...
#: drift") or a correction ("drip, no, drift"); read across the sentences a pause makes
_SPOKEN_RUN = re.compile(
    r"(?<![\w-])[a-z]{3,8}(?:(?:[ ,]+|[ ]*(?:\.{2,}|…)[ ]*)(?:(?:no|sorry|i mean|wait|nao"
    r"|quer dizer|digo)[ ,.…]+)?[a-z]{3,8}){11,30}(?![\w-])"
)


def _spoken_runs(folded: str) -> list[Span]:
    """Twelve words or more beside a wallet anywhere in the text, none of them a small word
    of a sentence once a correction is taken out: the words of a seed phrase said aloud."""
    if not _WALLET.search(folded):
        return []
    spans = []
    for run in _SPOKEN_RUN.finditer(folded):
        words = re.findall(
            r"[a-z]+",
            re.sub(r"\b(?:no|sorry|i mean|wait|nao|quer dizer|digo)\b", " ", run.group(0)),
        )
        if len(words) >= _MIN_SEED_WORDS and not set(words) & SENTENCE_WORDS:
            spans.append(Span(*run.span(), "seed"))
    return spans


@cache
def _bip39() -> frozenset[str]:
    """The English and Portuguese BIP 39 words, folded."""
    from mnemonic import Mnemonic

    return frozenset(
        word for language in ("english", "portuguese") for word in Mnemonic(language).wordlist
    )


#: at most this many words of a run outside the lists: a phrase written from memory or
#: made up for an example has one or two
_OFF_LIST = 2


#: words that ask for something to be kept safe: a seed phrase's words have no name, but this
_KEEP_SAFE = re.compile(
    r"\b(?:safe|secure|don'?t lose|never lose|write (?:this|it|these) down|backup|back up"
    r"|guard\w*|nao (?:perca|percas|perde)|segur[oa]|cofre|anota\w* (?:isto|isso|bem))\b"
)


def _listed_runs(folded: str) -> list[Span]:
    """Twelve words or more in a row, nearly all of them BIP 39 words and none of them a
    small word of a sentence: a seed phrase with no word for it ("Write this down somewhere
    safe: ||harvest amber lunar fix ...||")."""
    if not (_WALLET.search(folded) or _KEEP_SAFE.search(folded)):
        return []  # "Here is the shopping list: milk bread butter cheese ..."
    words = _bip39()
    spans = []
    for run in _WORD_RUN.finditer(folded):
        found = re.findall(r"[a-z]+", run.group(0))
        if set(found) & SENTENCE_WORDS:
            continue
        if sum(word not in words for word in found) <= _OFF_LIST:
            spans.append(Span(*run.span(), "seed"))
    return spans


def seed_spans(folded: str) -> list[Span]:
    spans = [Span(*m.span(), "seed") for m in _NUMBERED_WORDS.finditer(folded)]
    spans += _listed_runs(folded)
    spans += _spoken_runs(folded)
    for m in _SEED_PART.finditer(folded):
        if not set(m.group("value").replace(",", " ").split()) & SENTENCE_WORDS:
            spans.append(Span(*m.span("value"), "seed"))
    for match in _SEED.finditer(folded):
        words = re.findall(r"[a-z]+", match.group("value"))
        if sum(word in _NOT_SEED for word in words) <= 1:
            spans.append(Span(*match.span("value"), "seed"))
    return spans


#: a wallet's words with no name for them: "the bitcoin wallet restores with tiger maple ..."
_WALLET = re.compile(
    r"\b(?:wallets?|bitcoin|btc|eth|ethereum|crypto|cripto|carteira|ledger|trezor|metamask"
    r"|exodus|restores?|recover\w*|recupera\w*)\b"
)


_WORD_RUN = re.compile(r"(?<![\w-])[a-z]{3,8}(?:[ ,]+[a-z]{3,8}){11,23}(?![\w-])")


def wallet_spans(start: int, sentence: str) -> list[Span]:
    """Twelve words or more, none of them a small word of a sentence, beside a wallet (the
    words before them that are the sentence's own left out)."""
    if not _WALLET.search(sentence):
        return []
    spans = []
    for run in _WORD_RUN.finditer(sentence):
        words = list(re.finditer(r"[a-z]+", run.group(0)))
        tail = len(words)
        while tail and not (
            words[tail - 1].group() in SENTENCE_WORDS or _WALLET.fullmatch(words[tail - 1].group())
        ):
            tail -= 1
        if len(words) - tail >= _MIN_SEED_WORDS:
            first = words[tail].start() if tail < len(words) else 0
            spans.append(Span(start + run.start() + first, start + run.end(), "seed"))
    return spans
