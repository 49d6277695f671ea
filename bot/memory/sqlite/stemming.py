"""English and Portuguese stems for the episode index: "allergies" finds "allergy", "viajei"
finds "viajar".

An indexed text is stemmed in one language, the one whose stopwords dominate it (English when
unsure); a query is short and often mixed, so each of its words is looked up by both its
English and its Portuguese stem. Stems are taken of the folded word (no accents), so
``alérgica`` and ``alergica`` meet; FTS5 (``unicode61 remove_diacritics 2``) then indexes the
stems like any other word. Numbers and words of three letters or fewer are kept whole: stems of
them join unrelated words ("us" and "use").

Snowball stemmers (PyStemmer) are not safe to share between threads, so each thread keeps its
own; without PyStemmer the words are only folded, and recall still works, a little less well.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

from bot.memory.sqlite.query import MAX_QUERY_CHARS, MAX_QUERY_TOKENS, STOPWORDS, fold

__all__ = ["STEMMING", "index_terms", "query_stem_groups", "query_stems", "text_language"]

_WORD = re.compile(r"[^\W_]+")
_MAX_TOKEN_CHARS = 48
_MIN_STEM_CHARS = 4
_LANGS = {"en": "english", "pt": "portuguese"}

# the words that tell the two languages apart best (all folded, no accents)
_MARKERS = {
    "en": frozenset(
        "the and is was to of it in my i you that with for on have be at this we are not".split()
    ),
    "pt": frozenset(
        "o os as e de do da dos das que com um uma para em no na nao eu meu minha voce ele "
        "ela foi esta isso mas por se ao como sou estou tenho muito mais tambem ja ainda onde"
        " quando porque vou nos pra isto ser ter fazer sempre nunca hoje ontem amanha".split()
    ),
}
_local = threading.local()

try:
    import Stemmer as _stemmer_module
except ImportError:  # optional: without it, folded words only
    _stemmer_module = None

STEMMING = _stemmer_module is not None
"""Whether PyStemmer is installed (the episode index was built with stems)."""


def _stemmer(lang: str) -> Callable[[list[str]], list[str]] | None:
    if _stemmer_module is None:
        return None
    cache: dict[str, Callable[[list[str]], list[str]]] | None = getattr(_local, "stem", None)
    if cache is None:
        cache = {}
        _local.stem = cache
    if lang not in cache:
        cache[lang] = _stemmer_module.Stemmer(_LANGS[lang]).stemWords
    return cache[lang]


def text_language(words: list[str]) -> str:
    """``pt`` when Portuguese marker words outnumber English ones in ``words`` (folded)."""
    pt = sum(word in _MARKERS["pt"] for word in words)
    en = sum(word in _MARKERS["en"] for word in words)
    return "pt" if pt > en else "en"


def _stems(folded: list[str], lang: str) -> list[str]:
    """Stems of folded words: "école" and "ecole" must meet whichever way they are typed."""
    stem = _stemmer(lang)
    if stem is None:
        return folded
    return [
        word if len(word) < _MIN_STEM_CHARS or word.isdigit() else root
        for word, root in zip(folded, stem(folded), strict=True)
    ]


def index_terms(text: str) -> str:
    """The words of ``text`` as the index holds them: stems in the text's language, folded."""
    words = [word[:_MAX_TOKEN_CHARS] for word in _WORD.findall(fold(text))]
    if not words:
        return ""
    return " ".join(_stems(words, text_language(words)))


def query_stem_groups(text: str) -> list[list[str]]:
    """The search stems of ``text`` by word (stopwords dropped unless nothing else is left):
    each word's English and Portuguese stem, once each, words in first-seen order."""
    words: dict[str, None] = {}
    for word in _WORD.findall(fold(text[:MAX_QUERY_CHARS])):
        words.setdefault(word[:_MAX_TOKEN_CHARS], None)
    content = [word for word in words if word not in STOPWORDS] or list(words)
    content = content[:MAX_QUERY_TOKENS]
    english, portuguese = _stems(content, "en"), _stems(content, "pt")
    return [list(dict.fromkeys(pair)) for pair in zip(english, portuguese, strict=True)]


def query_stems(text: str) -> list[str]:
    """Every distinct search stem of ``text`` (:func:`query_stem_groups`, flattened)."""
    return list(dict.fromkeys(stem for group in query_stem_groups(text) for stem in group))
