"""The English and Portuguese word lists read by the role/filler parser (``parse``).

A deliberately small vocabulary: the pronouns, copulas, question words and prepositions of the
shapes people use to state durable facts about someone ("X prefers Y for Z", "I love Y", "X's
birthday is Y", "my wife is Y", "eu prefiro Y", "o aniversário de X é Y"), the verbs that become
relations, and a few Portuguese nouns mapped to English, so a fact told in one language answers
a question asked in the other. Words are compared in their :func:`fold` form: lower-case ASCII.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "AUXILIARIES",
    "BOUNDARIES",
    "COPULAS",
    "FIRST_PERSON",
    "FUNCTIONAL",
    "FUNCTION_WORDS",
    "NEGATIONS",
    "OF",
    "PARTICLES",
    "PHRASES",
    "POSSESSIVES",
    "QUESTION_OPENERS",
    "QUESTION_WORDS",
    "SECOND_PERSON",
    "STOPWORDS",
    "TOPIC_PREPOSITIONS",
    "TRANSLATIONS",
    "VERBS",
    "WORD",
    "fold",
]

WORD = re.compile(r"'s\b|,|[^\W_]+")

FIRST_PERSON = frozenset("i me my mine myself eu meu minha meus minhas mim comigo".split())
SECOND_PERSON = frozenset("you your yours yourself voce seu sua seus suas tu teu tua".split())
POSSESSIVES = frozenset(
    "my your his her their our meu minha meus minhas seu sua seus suas teu tua nosso nossa".split()
)
NEGATIONS = frozenset("not never nao nunca jamais".split())
AUXILIARIES = frozenset("do does did will would can could should".split())
COPULAS = frozenset(["is", "are", "am", "was", "were", "é", "sou", "são", "somos", "era", "foi"])
QUESTION_WORDS = frozenset(
    "what who whom when where which whose how que quem quando onde qual quais".split()
)
QUESTION_OPENERS = (("o", "que"), ("do", "que"), ("de", "que"), ("com", "quem"))
TOPIC_PREPOSITIONS = frozenset(
    "for at during in on no na nos nas em para pra pro durante ao".split()
)
BOUNDARIES = frozenset([",", "because", "when", "but", "while", "porque", "quando", "mas"])
PARTICLES = frozenset("de do da dos das to".split())
OF = frozenset("de do da dos das".split())
STOPWORDS = frozenset(
    (
        "a an the o a os as um uma uns umas of to de do da dos das that this these those some "
        "any very really so just also too muito muita mais bem tambem isso esse essa este "
        "esta and e or ou with com 's , it its his her their our nosso nossa he she they "
        "ele ela eles elas"
    ).split()
)
TRANSLATIONS = {
    "aniversario": "birthday",
    "esposa": "wife",
    "mulher": "wife",
    "marido": "husband",
    "filho": "son",
    "filha": "daughter",
    "mae": "mother",
    "pai": "father",
    "irmao": "brother",
    "irma": "sister",
    "cachorro": "dog",
    "cao": "dog",
    "gato": "cat",
    "nome": "name",
    "cidade": "city",
    "idade": "age",
    "chefe": "boss",
    "namorada": "girlfriend",
    "namorado": "boyfriend",
    "almoco": "lunch",
    "jantar": "dinner",
    "favorita": "favorite",
    "favorito": "favorite",
    "favourite": "favorite",
    "cor": "color",
    "colour": "color",
    "telefone": "phone",
}
PHRASES = {("cafe", "da", "manha"): "breakfast"}

_EN_VERBS = {
    "prefer": "prefer", "like": "like", "enjoy": "like", "love": "love", "adore": "love",
    "hate": "hate", "detest": "hate", "dislike": "dislike", "use": "use", "live": "live",
    "work": "work", "drink": "drink", "eat": "eat", "play": "play", "need": "need",
    "want": "want", "speak": "speak", "own": "own", "know": "know", "study": "study",
    "watch": "watch", "read": "read", "drive": "drive", "wear": "wear", "cook": "cook",
    "miss": "miss", "trust": "trust", "support": "support", "collect": "collect",
}  # fmt: skip
_PT_VERBS = {
    "prefer": "prefiro prefere preferem preferimos preferia preferiu",
    "like": "gosto gosta gostam gostamos gostava curto curte",
    "love": "amo ama amam adoro adora adoram",
    "hate": "odeio odeia odeiam detesto detesta",
    "use": "uso usa usam",
    "live": "moro mora moram vivo vive",
    "work": "trabalho trabalha trabalham",
    "drink": "bebo bebe bebem tomo toma",
    "play": "toco toca jogo joga",
    "need": "preciso precisa",
    "want": "quero quer querem",
    "speak": "falo fala falam",
    "own": "tenho tem",
    "know": "conheco conhece sei sabe",
    "study": "estudo estuda",
}
#: relations that hold one value at a time: a new object replaces the old one
FUNCTIONAL = frozenset(
    "prefer live work birthday wife husband name age city boss girlfriend boyfriend".split()
)


def _inflections(base: str) -> list[str]:
    if base.endswith("y"):
        return [base, base[:-1] + "ies", base[:-1] + "ied"]
    if base.endswith(("s", "sh", "ch", "x")):
        return [base, base + "es", base + "ed"]
    if base.endswith("e"):
        return [base, base + "s", base + "d"]
    return [base, base + "s", base + "ed", base + base[-1] + "ed"]


def _verb_table() -> dict[str, str]:
    table = {form: canon for base, canon in _EN_VERBS.items() for form in _inflections(base)}
    table.update({form: canon for canon, forms in _PT_VERBS.items() for form in forms.split()})
    return table


VERBS = _verb_table()
FUNCTION_WORDS = (
    STOPWORDS
    | POSSESSIVES
    | NEGATIONS
    | FIRST_PERSON
    | SECOND_PERSON
    | AUXILIARIES
    | QUESTION_WORDS
    | TOPIC_PREPOSITIONS
)


def fold(word: str) -> str:
    """``word`` in lower case without its accents ("Aniversário" → "aniversario")."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()
