"""What one fact about the user says that a newer fact replaces: where they live, where and
as what they work, their age, who their dentist or partner is.

"I live in Lisbon" promoted in March and "Remember that I moved to Porto" in June are one
thing said twice; kept side by side in USER.md, every prompt would carry both and the persona
would not know which holds. :func:`fact_slot` names the thing (``home``, ``employer``,
``job``, ``age``, ``my dentist``...) for the few kinds of fact a person has one of at a
time, in English and Portuguese; any other fact has no slot and never replaces anything ("my
sister is a nurse" and "my sister is pregnant" are both true). The forms are read on the
comparison form (:func:`bot.memory.normal_form.normalise_text`: folded, no punctuation), after
a word or two that only lead in ("oh", "so", "by the way", "pois"...).
"""

from __future__ import annotations

import re

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
_EN_I = r"(?:i|i m|i am|i ve|i have)\s+"
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

_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (slot, re.compile(_LEAD + pattern + r"\b"))
    for slot, pattern in (
        ("home", _EN_I + _NOW + r"(?:live|living|based)\s+(?:in|on|at)"),
        ("home", _EN_I + _NOW + r"moved\s+(?:to|into)"),
        ("home", _PT_I + _NOW + r"(?:moro|vivo)\s+" + _NOW + r"(?:em|no|na|nos|nas)"),
        ("home", _PT_I + _NOW + r"(?:mudei\s+me|mudei)\s+para"),
        ("employer", _EN_I + _NOW + r"(?:work|working)\s+(?:at|for)"),
        ("job", _EN_I + _NOW + r"(?:work|working)\s+as"),
        ("employer", _PT_I + _NOW + r"trabalho\s+" + _NOW + r"(?:em|no|na|para)"),
        ("job", _PT_I + _NOW + r"trabalho\s+" + _NOW + r"como"),
        ("age", r"(?:i m|i am)\s+\d{1,3}(?:\s+years\s+old)?$"),
        ("age", _PT_I + r"(?:tenho|fiz)\s+\d{1,3}\s+anos"),
    )
)
_MY = re.compile(
    _LEAD + r"(?:my|(?:o|a)\s+(?:meu|minha)|meu|minha)\s+(?:new\s+|novo\s+|nova\s+)?"
    rf"(?P<noun>{_NOUNS})\s+(?:novo\s+|nova\s+)?(?:is|e|chama\s+se|is\s+called)\b"
)
_FAVOURITE = re.compile(
    _LEAD + r"(?:my\s+(?:favourite|favorite)\s+(?P<en>\w+)\s+is"
    r"|(?:o|a)?\s*(?:meu|minha)\s+(?P<pt>\w+)\s+(?:favorito|favorita|preferido|preferida)\s+e)\b"
)


def fact_slot(fact: str) -> str | None:
    """The one-at-a-time thing ``fact`` says about the user (``home``, ``employer``, ``job``,
    ``age``, ``my dentist``, ``my favourite colour``...), or None when it says no such thing:
    two facts of one slot cannot both hold, so the newer replaces the older."""
    said = normalise_text(fact)
    for slot, form in _FORMS:
        if form.match(said):
            return slot
    if (mine := _MY.match(said)) is not None:
        return f"my {_PEOPLE[mine['noun']]}"
    if (favourite := _FAVOURITE.match(said)) is not None:
        noun = favourite["en"] or favourite["pt"]
        return f"my favourite {_FAVOURITES.get(noun, noun)}"
    return None
