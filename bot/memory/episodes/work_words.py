"""Whether a question asks what someone does for a living, and whether a message names a
line of work, in English and Portuguese.

"What do I do for a living?" shares no word with "being the only qualified vet nurse on
shift", and "Qual é a minha profissão?" none with "ser arquiteta de obra pública é isso":
the message that answers names a trade, and the others about the same days seldom do. A
question that asks about a person's work (:func:`asks_about_work`: "for a living", "my
brother's job", "where am I working", "who does Priya work for", "what does Tom do?", "line
of work", "profissão", "trabalha em quê", "faz da vida"; not "Is the heater working?")
lifts each candidate message that names one (:func:`names_work`: a trade or a title,
"nurse", "UX designer", "arquiteta", "bombeiro", or a change of work, "laid off", "got
promoted", "despedida", "por conta própria"). Both read the folded text (lower case, no
accents), so "médica" and "medica" meet.
"""

from __future__ import annotations

import re

from bot.memory.sqlite.query import fold

__all__ = ["asks_about_work", "names_work"]

#: a person's work asked about: "for a living", "my brother's job", "where am I working",
#: "who does Priya work for", "what does Tom do?"; not a thing that works ("Is the heater
#: working?", "Did the plumber finish the job?", "the cargo on the ship")
_ASKS = re.compile(
    r"\b(?:"
    r"do(?:es)? for (?:a )?living|(?:for|of|at|from) work\b|line of work"
    r"|profession\w*|career|occupation|employ(?:er|ers|ed|ment)"
    r"|(?:my|your|his|her|their|our|\w+'s|what|which) (?:\w+ )?job\b|job (?:as|at|with)"
    r"|(?:my|your|his|her|their|our|\w+'s) (?:\w+ )?role (?:at|in|with|on)\b"
    r"|(?:am|is|are|was|were) (?!it\b|this\b|that\b|the\b|my\b|your\b|our\b)\w+ working"
    r"|work(?:s|ed|ing)? (?:as|at|for)\b"
    r"|(?:where|who) (?:do|does|did) (?:(?:my|his|her|our|their|your) )?\w+ work\b"
    r"|what (?:do|does) (?!it\b|this\b|that\b)\w+ do\s*[?.!]*\s*$"
    r"|profiss\w*|faz(?:es)? da vida|emprego\w*|carreira|oficio|funcionari\w*"
    r"|(?:que|o|um|novo) cargo\b|cargo de"
    r"|trabalh\w* (?:em|como|onde|para|na|no|numa|num|de)\b|onde (?:e que )?(?:\w+ ){0,3}trabalh"
    r"|(?:em|de) que trabalh|(?:o|do|da|meu|teu|seu) trabalho d[oa]\b|trabalh\w* (?:o|a) \w+\s*\?"
    r"|com o que .{0,40}trabalh|(?:deix|comec|volt)\w* (?:de|a) trabalhar"
    r"|o que (?:e que )?(?:o |a )?\w+ faz\s*[?.!]*\s*$|o que faz (?:o |a )?\w+\s*[?.!]*\s*$"
    r")"
)

_ENGLISH_WORK = (
    r"nurs(?:e|es|ing)|doctor|gp|teach(?:er|ers|ing)|lecturer|professor|engineer\w*"
    r"|developer|programmer|designer|architect|lawyer|solicitor|attorney|accountant|chef"
    r"|cook|baker|barista|waiter|waitress|firefighter|paramedic|police|cop|pharmacist"
    r"|dentist|vets?|veterinar\w*|physio\w*|therapist|counsel+or\w*|psycholog\w*"
    r"|social worker|journalist|reporter|editor|writer|photographer|artist|musician|actor"
    r"|actress|electrician|plumber|carpenter|mechanic|pilot|manager|consultant|analyst"
    r"|scientist|researcher|intern|cashier|receptionist|secretary|librarian|farmer"
    r"|gardener|carer|caregiver|midwife|surgeon|ana?esthetist|technician|clerk|realtor"
    r"|estate agent|banker|broker|freelanc\w*|self-employed|contractor|builder|tutor|coach"
    r"|instructor|hairdresser|barber|translator|interpreter|administrator|director|founder"
    r"|entrepreneur|retired|laid off|hired|promoted|promotion|new job|job offer|phd"
    r"|coordinator|officer|supervisor|specialist|advis[eo]r|paralegal|underwriter"
    r"|(?:teaching|care|nursing|shop|sales|personal|dental|research|legal) assistant"
)
_PORTUGUESE_WORK = (
    r"enfermeir\w*|medic[oa]|docente|engenheir\w*|programador\w*|desenvolvedor\w*"
    r"|arquitet\w*|advogad\w*|contabilista|contador\w*|cozinheir\w*|padeir\w*"
    r"|empregad[oa] de mesa|garcom|garconete|bombeir\w*|paramedic\w*|policia\w*"
    r"|farmaceutic\w*|veterinari\w*|fisioterapeuta|terapeuta|psicolog[oa]|assistente social"
    r"|jornalista|escritor\w*|fotograf[oa]|musico|atriz|ator|eletricista"
    r"|canalizador|encanador|carpinteir\w*|mecanic[oa]|motorista|gerente|gestor\w*"
    r"|consultor\w*|analista|cientista|investigador\w*|pesquisador\w*|estagiari\w*"
    r"|rece?pcionista|secretari[oa]|bibliotecari\w*|agricultor\w*|jardineir\w*|cuidador\w*"
    r"|parteira|cirurgi\w*|anestesista|tecnic[oa]|vendedor\w*|corretor\w*|bancari[oa]"
    r"|autonom[oa]|por conta(?: propria)?|empreiteir\w*|pedreir\w*|explicador\w*"
    r"|treinador\w*|instrutor\w*|cabeleireir\w*|barbeir\w*|costureir\w*|tradutor\w*"
    r"|interprete|administrador\w*|diretor\w*|director\w*|fundador\w*|empresari\w*"
    r"|aposentad\w*|reformad[oa]|desempregad\w*|despedid\w*|contratad\w*|promovid\w*"
    r"|promocao|clt|mei|doutorado|mestrado|coordenador\w*|supervisor\w*|especialista"
)
_NAMES = re.compile(rf"\b(?:{_ENGLISH_WORK}|{_PORTUGUESE_WORK})\b")


def asks_about_work(question: str) -> bool:
    """Whether ``question`` asks about someone's work: "What do I do for a living?", "Where
    am I working now?", "O que o Rodrigo faz da vida?"."""
    return _ASKS.search(fold(question)) is not None


def names_work(text: str) -> bool:
    """Whether ``text`` names a line of work or a change of it: "the only qualified vet
    nurse on shift", "I'm a UX designer", "sou arquiteta", "they let me go... laid off"."""
    return _NAMES.search(fold(text)) is not None
