"""Seed and recovery phrases as people say them in chat, for
:mod:`bot.memory.secrets.speech`: twelve words or more after their name, on the same line
or the next, quoted or not; numbered words ("1 ladder 2 mercy ..."); half a phrase, named ("first
half of the backup words: ..."); and twelve words or more with none of a sentence's small words
beside a wallet ("the bitcoin wallet restores with tiger maple ..."), said aloud with a pause
or a correction, or nearly all from the BIP 39 lists in a text that asks to keep them safe.
"""

from __future__ import annotations

import re
from functools import cache

from bot.memory.secrets.values import Span

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


#: the words of a correction said aloud: "drip, no, drift"
_CORRECTION = r"(?:no|sorry|i mean|wait|nao|quer dizer|digo)"

#: twelve words or more in a row, as a voice note writes a phrase down too: broken by a pause
#: ("drip... drift") or a correction ("drip, no, drift"), across the sentences a pause makes
_UNNAMED_RUN = re.compile(
    rf"(?<![\w-])[a-z]{{3,8}}(?:(?:[ ,]+|[ ]*(?:\.{{2,}}|…)[ ]*)(?:{_CORRECTION}[ ,.…]+)?"
    r"[a-z]{3,8}){11,30}(?![\w-])"
)


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


def _unnamed_runs(folded: str) -> list[Span]:
    """A seed phrase with no word for it: twelve words or more in a row, none of them a small
    word of a sentence once a correction is taken out, in a text about a wallet ("the seed of
    the ledger: orbit velvet canyon hollow drip... no drift ..."), or nearly all of them BIP 39
    words in a text that asks to keep them safe ("Write this down somewhere safe: ||harvest
    amber lunar fix ...||"; not "Here is the shopping list: milk bread butter ...")."""
    wallet = _WALLET.search(folded) is not None
    if not (wallet or _KEEP_SAFE.search(folded)):
        return []
    spans = []
    for run in _UNNAMED_RUN.finditer(folded):
        words = re.findall(r"[a-z]+", re.sub(rf"\b{_CORRECTION}\b", " ", run.group(0)))
        if len(words) < _MIN_SEED_WORDS or set(words) & SENTENCE_WORDS:
            continue
        if wallet or sum(word not in _bip39() for word in words) <= _OFF_LIST:
            spans.append(Span(*run.span(), "seed"))
    return spans


def seed_spans(folded: str) -> list[Span]:
    spans = [Span(*m.span(), "seed") for m in _NUMBERED_WORDS.finditer(folded)]
    spans += _unnamed_runs(folded)
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
