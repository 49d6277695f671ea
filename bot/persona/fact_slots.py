"""What one fact about the user says that a newer fact replaces: where they live, where and
as what they work, their age, who their dentist or partner is.

"I live in Lisbon" promoted in March and "Remember that I moved to Porto" in June are one
thing said twice; kept side by side in USER.md, every prompt would carry both and the persona
would not know which holds. :func:`fact_slot` names the thing (``home``, ``employer``,
``job``, ``age``, ``my dentist``...) for the few kinds of fact a person has one of at a
time, in English and Portuguese; any other fact has no slot and never replaces anything ("my
sister is a nurse" and "my sister is pregnant" are both true). The forms are read without
accents or punctuation, after a word or two that only lead in ("oh", "so", "by the way",
"pois"...); where one lives or moves to is a home only when it is a place by its name or a
dwelling ("I live in Lisbon", "I moved into a new flat"; not "I moved to the night shift",
"I live on coffee", "I'm living on a budget"), and work "at home", "at night" or "for fun"
names no employer. A fact typed all in lower case has no capital to tell a name by: a person's
name there comes after a title ("my dentist is dr varga"), and a home only as a dwelling ("i
moved into a new flat"); "i moved to porto" replaces nothing, as "i moved to python" must not.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from bot.memory.normal_form import normalise_text

__all__ = ["fact_slot"]

#: words that may open a sentence without saying anything of the fact
_LEAD = (
    r"^(?:(?:oh|so|well|also|and|btw|by the way|ok|okay|yes|yeah|anyway"
    r"|pois|bem|entao|ja agora|alias|sim|olha|e)\s+)*"
)
#: a word that says the fact holds now, where it may stand
_NOW = (
    r"(?:(?:now|currently|still|finally|just|actually"
    r"|agora|atualmente|actualmente|ainda|finalmente|ja)\s+)?"
)
_EN_I = r"(?:i|i'm|i am|i've|i have)\s+"
_PT_I = r"(?:eu\s+)?"

#: a person's one-at-a-time relations, English and Portuguese, by the slot they fill
_PEOPLE = {
    "dentist": "dentist",
    "dentista": "dentist",
    "doctor": "doctor",
    "gp": "doctor",
    "medico": "doctor",
    "medica": "doctor",
    "boss": "boss",
    "manager": "boss",
    "chefe": "boss",
    "partner": "partner",
    "companheiro": "partner",
    "companheira": "partner",
    "wife": "wife",
    "mulher": "wife",
    "esposa": "wife",
    "husband": "husband",
    "marido": "husband",
    "girlfriend": "girlfriend",
    "namorada": "girlfriend",
    "boyfriend": "boyfriend",
    "namorado": "boyfriend",
    "landlord": "landlord",
    "landlady": "landlord",
    "senhorio": "landlord",
    "senhoria": "landlord",
    "therapist": "therapist",
    "terapeuta": "therapist",
    "birthday": "birthday",
    "aniversario": "birthday",
    "address": "address",
    "morada": "address",
    "endereco": "address",
}
#: the same favourite in either language's word
_FAVOURITES = {
    "color": "colour",
    "cor": "colour",
    "comida": "food",
    "prato": "dish",
    "movie": "film",
    "filme": "film",
    "livro": "book",
    "banda": "band",
    "musica": "song",
    "cancao": "song",
    "bebida": "drink",
    "desporto": "sport",
    "esporte": "sport",
    "cidade": "city",
}
_NOUNS = "|".join(sorted(_PEOPLE, key=len, reverse=True))

#: the first word of what follows a form, past an article and "new"
_FIRST_WORD = re.compile(
    r"\s*(?:(?:the|a|an|o|a|os|as|um|uma)\s+)?(?:(?:new|novo|nova)\s+)?(?P<word>\w[\w'-]*)"
)
#: where someone lives or moves to when it is a home and has no name ("I moved into a new
#: flat", "I live in the city centre")
_DWELLINGS = frozenset(
    "flat house apartment cottage bungalow home city town village countryside suburbs centre"
    " center casa apartamento moradia vivenda cidade vila aldeia campo centro bairro".split()
)
#: what one works at or for that says when or how, not where ("at night", "for fun")
_NOT_WORKPLACES = frozenset(
    "home casa night nights weekend weekends least most times moment fun free living"
    " noite noites turno".split()
)


#: a title before a name, which a sentence typed in lower case keeps (straight after the
#: form: "a doctor" is what someone is)
_TITLES = frozenset("dr dra mr mrs ms mx prof sr sra".split())


def _first_word(rest: str) -> str:
    """The first word of ``rest`` past an article and "new" ("" when there is none)."""
    found = _FIRST_WORD.match(rest)
    return found["word"] if found else ""


def _a_place(rest: str) -> bool:
    """Whether where one lives or moved to is a home: a name ("Porto", "o Porto") or a
    dwelling; not "the night shift", "a new team", "coffee" or "a budget". Typed in lower
    case, only a dwelling: "i moved to python" and "i moved to porto" look alike."""
    word = _first_word(rest)
    return word[:1].isupper() or word.casefold() in _DWELLINGS


def _a_workplace(rest: str) -> bool:
    """Whether where one works is a workplace: "at home" / "em casa" says how, "at night" or
    "at least" when or how much, not where."""
    return _first_word(rest).casefold() not in _NOT_WORKPLACES


#: words English writes with a capital that say what someone is, not who ("my boss is
#: Italian", "my wife is Catholic")
_CAPITALISED_KINDS = frozenset(
    """american argentinian australian austrian belgian brazilian british buddhist canadian
    catholic chilean chinese christian colombian croatian czech danish dutch egyptian english
    filipino finnish french german greek hindu hungarian indian indonesian irish israeli
    italian jamaican japanese jewish kenyan korean mexican moroccan muslim nigerian norwegian
    pakistani peruvian polish portuguese protestant romanian russian scottish serbian spanish
    swedish swiss thai turkish ukrainian venezuelan vietnamese welsh""".split()
)


def _a_name(rest: str, *, lower: bool) -> bool:
    """Whether what a person's slot is given is a name, a title or a date ("Dr. Varga",
    "Rui", "March 3", "a 3 de março"), not what they are like ("a nightmare", "pregnant",
    "Italian")."""
    word = _first_word(rest)
    if word.casefold() in _CAPITALISED_KINDS:
        return False
    leading = rest.split(maxsplit=1)
    if lower and leading and leading[0] in _TITLES:
        return True
    return word[:1].isupper() or word[:1].isdigit()


def _anything(rest: str) -> bool:
    return True


_FORMS: tuple[tuple[str, re.Pattern[str], Callable[[str], bool]], ...] = tuple(
    (slot, re.compile(_LEAD + pattern + r"\b", re.IGNORECASE), check)
    for slot, pattern, check in (
        ("home", _EN_I + _NOW + r"(?:live|living|based)\s+(?:in|on|at)", _a_place),
        ("home", _EN_I + _NOW + r"moved\s+(?:to|into)", _a_place),
        (
            "home",
            _PT_I + _NOW + r"(?:moro|vivo)\s+" + _NOW + r"(?:em|no|na|nos|nas)",
            _a_place,
        ),
        ("home", _PT_I + _NOW + r"(?:mudei-me|mudei)\s+para", _a_place),
        ("employer", _EN_I + _NOW + r"(?:work|working)\s+(?:at|for)", _a_workplace),
        ("job", _EN_I + _NOW + r"(?:work|working)\s+as", _anything),
        (
            "employer",
            _PT_I + _NOW + r"trabalho\s+" + _NOW + r"(?:em|no|na|para)",
            _a_workplace,
        ),
        ("job", _PT_I + _NOW + r"trabalho\s+" + _NOW + r"como", _anything),
        ("age", r"(?:i'm|i am)\s+\d{1,3}(?:\s+years\s+old)?$", _anything),
        ("age", _PT_I + r"(?:tenho|fiz)\s+\d{1,3}\s+anos", _anything),
    )
)
_MY = re.compile(
    _LEAD + r"(?:my|(?:o|a)\s+(?:meu|minha)|meu|minha)\s+(?:new\s+|novo\s+|nova\s+)?"
    rf"(?P<noun>{_NOUNS})\s+(?:novo\s+|nova\s+)?(?:is\s+called|is|e|chama-se)\b",
    re.IGNORECASE,
)
_FAVOURITE = re.compile(
    _LEAD + r"(?:my\s+(?:favourite|favorite)\s+(?P<en>\w+)\s+is"
    r"|(?:o|a)?\s*(?:meu|minha)\s+(?P<pt>\w+)\s+(?:favorito|favorita|preferido|preferida)\s+e)\b"
)


def fact_slot(fact: str) -> str | None:
    """The one-at-a-time thing ``fact`` says about the user (``home``, ``employer``, ``job``,
    ``age``, ``my dentist``, ``my favourite colour``...), or None when it says no such thing:
    two facts of one slot cannot both hold, so the newer replaces the older."""
    said = _plain(fact)
    for slot, form, check in _FORMS:
        if (found := form.match(said)) is not None and check(said[found.end() :]):
            return slot
    mine = _MY.match(said)
    if mine is not None and _a_name(said[mine.end() :], lower=said.islower()):
        return f"my {_PEOPLE[mine['noun'].casefold()]}"
    if (favourite := _FAVOURITE.match(normalise_text(fact))) is not None:
        noun = favourite["en"] or favourite["pt"]
        return f"my favourite {_FAVOURITES.get(noun, noun)}"
    return None


def _plain(fact: str) -> str:
    """``fact`` with its accents, curly apostrophes and punctuation but hyphens and
    apostrophes taken off, its case kept (a place moved to is told by its capital)."""
    unaccented = "".join(
        c for c in unicodedata.normalize("NFD", fact) if not unicodedata.combining(c)
    )
    spaced = re.sub(r"[^\w'-]+", " ", unaccented.replace("’", "'"))
    return " ".join(spaced.split())
