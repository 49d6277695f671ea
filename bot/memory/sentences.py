"""Where the sentences of an English or Portuguese chat message begin and end.

A new line and a ``"; "`` always end a sentence. A ``.``, ``!``, ``?`` or ellipsis followed by
a space ends one too, with whatever closes it (quotes, brackets, emoji after the mark), except
where people do not end them:

* after a title or an abbreviation that is always followed by more ("Dr. Varganova",
  "Sra. Costa", "St. Louis", "Av. Paulista", "R. Augusta", "e.g. apples", "p. ex. manga"),
  and a square's or a road's written with a capital ("Pç. da Figueira", "Rod. Anhanguera");
* after an initial ("J. R. R. Tolkien", "D. Maria"), unless it is a grade's, a plan's or a
  vitamin's letter ("I got an A. Mum was thrilled", "Plan B. Ask Tom"), and after capital
  initials ("J.R.R.") before a capitalised word that seldom opens a sentence ("J.R.R.
  Tolkien"), unless they are a place's, a body's or a degree's ("the U.S. Sarah loved it"
  ends);
* after an abbreviation that may end a sentence ("etc.", "p.m.", "U.S.", "Ph.D.", "Jan.",
  "Ltda.", "yrs.", "Univ.") unless the next word opens with a capital; after "No."/"ext."/
  "Jan."/"Fri." and the like before a number ("Sat."/"Set." and the others that are words
  too only with a capital), after a day before "to", "and", "a", "até" ("Mon. to Fri."),
  after a day before its date ("Mon. the 3rd"), and after "a.m."/"p.m." before a day or a
  month;
* after "Jr." and a street's "St."/"Ave."/"Rd." unless the next word often opens a sentence
  ("Martin L. King Jr. Day", "St. Louis"; "I live on Elm St. It's quiet" ends);
* after a list's number at the start of a sentence ("2. Buy milk" stays one);
* after an ellipsis, or a quoted "?"/"!" ("\\"Why?\\" she asked"), before a small letter.

An emoji followed by a capital ends a sentence when two words or more came before it ("Adoro
café ☕ De manhã"), not in "I ❤️ Porto". Dots with no space after them (3.30, 2.5 kg, v1.2,
URLs, e-mail addresses) never split. Spans are offsets into the text, so a caller can replace
one sentence and keep the rest as written (:func:`bot.memory.policy.withhold_sentences`).

Measured by ``bench/sentences.py`` on ``tests/data/sentences.tsv`` (127 tuning, 70 held-out
messages): these rules 127/127 and 70/70, about 5 µs a sentence; of the first 116 and the 70,
sentencex 89 and 50 (PT 40/69, "Av.", "R.", "Srta.", "S." cut), pysbd 82 and 54 (no
Portuguese), ~200 µs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = [
    "ABBREVIATIONS",
    "ACRONYMS",
    "CAPITAL_NUMBERED",
    "DAYS",
    "MAY_END",
    "MONTHS",
    "NUMBERED",
    "OPENER_ENDS",
    "sentence_spans",
    "split_sentences",
]

#: lower case, without the final dot: titles and words that never end a sentence
ABBREVIATIONS = frozenset(
    """
    mr mrs ms mx dr dra drs dras prof profa profª profs sr sra srs sras srta srtas st sto sta
    av r rev fr pe gen capt cpt lt col sgt gov sen rep hon pres exmo exma exmos eng arq mt ft
    vs cf e.g i.e viz p pp pg pág
    """.split()
)
#: lower case, without the final dot: months (EN and PT) that are no other word
MONTHS = frozenset("jan feb apr jun jul aug sep sept oct nov dec fev abr mai dez".split())
#: and days of the week
DAYS = frozenset("mon tue tues thu thur thurs fri seg ter qua qui sáb".split())
#: lower case, without the final dot: they end a sentence only before a capital. Words
#: that are words too ("no", "art", "sec", "max", "ter") are not here: people who write
#: without capitals end sentences with them ("i said no. he left", "wait a sec. ok")
MAY_END = (
    frozenset(
        """
    etc jr inc ltd ltda co corp cia approx aprox mín máx obs dept depto apto ap tel vol séc nr
    num núm ext apt ste bldg ph.d m.sc b.sc univ govt assn yr yrs hr hrs mins secs wk wks lb
    lbs oz pkg qty exa exas
    """.split()
    )
    | MONTHS
)
#: after a day of the week, words that go on with a range, a list or a time ("Mon. to Fri.",
#: "seg. a sex."); before any other small letter a day ends its sentence ("see you on fri.
#: i'll...")
_DAY_RANGE = frozenset("to till until through thru and or from at a e ou até das às".split())
#: lower case, without the final dot: they end a sentence only before a word that often
#: opens one ("Martin L. King Jr. Day" goes on, "Sammy Davis Jr. He sang" ends; "St. Louis"
#: goes on, "I live on Elm St. It's quiet" ends)
OPENER_ENDS = frozenset("jr st av ave rd blvd ln".split())
#: lower case, without the final dot: a square's or a road's, words too ("a fishing rod.", "an
#: LG."): they go on only written with a capital and before a small letter or a capitalised
#: word that seldom opens a sentence ("Pç. da Figueira", "Rod. Anhanguera", "Lg. do Rato")
_PLACES = frozenset("pç pça trav lg lgo estr rod".split())
#: a firm's "Co." or "Corp." goes on before the rest of its name ("Acme Co. Ltd. in Leeds")
_FIRM = frozenset({"co", "corp"})
_FIRM_AFTER = frozenset({"ltd", "inc", "llc", "plc", "limited"})
#: after a day of the week, its date ("Mon. the 3rd", "Tue. 12th")
_DATE_AFTER = re.compile(r"\s+(?:the\s+)?\d")
#: "a.m." and "p.m." go on before a day or a month ("8 a.m. Mon. to Fri.", "3 p.m. Tuesday")
_CLOCK = frozenset({"a.m", "p.m"})
_CALENDAR = re.compile(
    r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
    r"|january|february|march|april|june|july|august|september|october|november|december"
)
#: lower case, without the final dot: before a number they never end a sentence ("No. 12",
#: "Jan. 5", "Fri. 12 June")
NUMBERED = (
    frozenset(
        "no nr n num núm nos tel vol cap art fig ch sec ed apto ap ext apt ste rm bldg".split()
    )
    | MONTHS
    | DAYS
)
#: the same for months and days that are words too, only written with a capital ("on Sat. 3
#: May"; "We sat in the sun. 2 hours later..." ends)
CAPITAL_NUMBERED = frozenset("mar set out ago wed sat sun sex dom".split())
#: lower case, without the final dot: letters with dots that are a place's, a body's or a
#: degree's, not a person's initials ("the U.S. Sarah loved it" ends there)
ACRONYMS = frozenset(
    """
    u.s u.s.a u.k l.a d.c n.y n.y.c u.n e.u t.v b.a m.a b.sc m.sc p.s a.m p.m
    e.u.a r.u u.e s.p r.j
    """.split()
)
#: lower case: words that often open a sentence; after capital initials ("J.R.R. Tolkien",
#: "U.S.") any other capitalised word is read as the rest of a name
OPENERS = frozenset(
    """
    i i'm i've i'll i'd a an the we he she it it's they you my our his her their its your this
    that these those there then but and so or next now also after before when what how why
    where who which if in on at by for from to with last yesterday today tomorrow anyway well
    oh yes no ok okay not let's please thanks thank hope maybe sorry hi hello just still
    eu ele ela nós eles elas você vocês o os as um uma uns umas mas e ou então depois antes hoje
    ontem amanhã isso isto aquilo esse essa este esta meu minha nosso nossa seu sua se quando
    como porque porquê não sim já também agora foi é está estou vamos obrigado obrigada olá
    oi ainda só talvez desculpa no na em
    """.split()
)

_EMOJI = "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u231a-\u23ff\ufe0f\u200d]"
_CLOSERS = "\"'”’»)\\]"
_OPENERS = "\"'“‘«(\\[¿¡"
_BOUNDARY = re.compile(
    rf"(?P<mark>[.!?…]+)(?P<close>[{_CLOSERS}]*)(?P<tail>(?:[ \t]*{_EMOJI}+)*)(?P<gap>\s+)"
    rf"|(?P<emoji>{_EMOJI}+)(?P<egap>[ \t]+)"
    r"|(?P<line>[ \t]*\n\s*)"
    r"|(?P<semi>;\s+)"
)
#: "a.m", "U.S", "d.C": letters with dots between them (the last dot is the mark)
_DOTTED = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]")
#: "J.R.R", "U.S": capital letters with dots between them
_INITIALS = re.compile(r"(?:[^\W\d_a-zà-ÿ]\.)+[^\W\d_a-zà-ÿ]")
_WORD = re.compile(r"[\w'’]+")
#: lower case: the words after which a capital letter is a thing, not an initial ("an A",
#: "plan B", "got a B", "tirei um B")
_LETTER_KEYS = frozenset(
    "an grade plan vitamin nota plano vitamina letra got|a get|a gets|a tirei|um".split()
)
#: the words looked at before an emoji, enough to count two
_EMOJI_LOOKBEHIND = 80


def _next_opens(text: str, pos: int) -> str:
    """The first character of the next word after ``pos``, opening quotes skipped ("" at the
    end)."""
    while pos < len(text) and text[pos] in _OPENERS:
        pos += 1
    return text[pos] if pos < len(text) else ""


def _next_word(text: str, pos: int) -> str:
    """The next word at or after ``pos``, opening quotes skipped ("" if none)."""
    found = _WORD.search(text, pos)
    return found.group().replace("’", "'") if found else ""


def _word_before(text: str, start: int, end: int) -> str:
    """The word that ends at ``end`` (no further back than ``start``), opening quotes off."""
    i = end
    while i > start and not text[i - 1].isspace():
        i -= 1
    return text[i:end].lstrip(_OPENERS)


def _is_day(text: str, start: int, end: int, word: str) -> bool:
    """Whether ``word``, ending at ``end``, is a day of the week: one of :data:`DAYS`, one of
    those that are words too with a capital, or with a small letter at the end of a range
    ("seg. a sex.")."""
    key = word.lower()
    if key in DAYS or (key in CAPITAL_NUMBERED and word[:1].isupper()):
        return True
    before = text[start : end - len(word)].split()[-2:]
    return (
        key in CAPITAL_NUMBERED
        and len(before) == 2
        and before[0].rstrip(".").lower() in DAYS | CAPITAL_NUMBERED
        and before[1].lower() in _DAY_RANGE
    )


def _period_ends(text: str, start: int, end: int, following: str) -> bool:
    """Whether a lone "." at ``end`` ends the sentence that began at ``start``, ``following``
    opening the next."""
    word = _word_before(text, start, end)
    key = word.lower()
    if key in OPENER_ENDS:
        return following.isupper() and _next_word(text, end + 1).lower() in OPENERS
    if key in ABBREVIATIONS:
        return False
    if key in _PLACES and word[:1].isupper() and not word.isupper():
        return following.isupper() and _next_word(text, end + 1).lower() in OPENERS
    if key in _CLOCK and _CALENDAR.fullmatch(_next_word(text, end + 1).lower()):
        return False
    if _is_day(text, start, end, word) and (
        _next_word(text, end + 1).lower() in _DAY_RANGE or _DATE_AFTER.match(text, end + 1)
    ):
        return False  # "Mon. to Fri.", "Mon. the 3rd"
    if key == "ex" and text[start : end - 2].rstrip().lower().endswith(" p."):
        return following.isupper()  # "p. ex. manga"
    if len(word) == 1 and word.isupper():  # an initial ("J. R. R. Tolkien") or a grade
        before = [w.lower() for w in text[start : end - 1].split()[-2:]]
        named = {before[-1], "|".join(before)} if before else set()
        return following.isupper() and bool(named & _LETTER_KEYS)
    if following.isdigit() and (
        key in NUMBERED or (key in CAPITAL_NUMBERED and word[:1].isupper())
    ):
        return False
    if _INITIALS.fullmatch(word) and key not in ACRONYMS and following.isupper():
        return _next_word(text, end + 1).lower() in OPENERS
    if key in _FIRM and _next_word(text, end + 1).lower() in _FIRM_AFTER:
        return False  # "Acme Co. Ltd."
    if key in MAY_END or _DOTTED.fullmatch(word):
        return following.isupper()
    if word.isdigit() and len(word) <= 2:  # "2. Buy milk", unless words came before
        return bool(text[start : end - len(word)].strip())
    return True


def _ends(text: str, start: int, match: re.Match[str]) -> bool:
    """Whether the candidate boundary ``match`` ends the sentence that began at ``start``."""
    following = _next_opens(text, match.end())
    if match.group("emoji"):
        before = text[max(start, match.start() - _EMOJI_LOOKBEHIND) : match.start()]
        return following.isupper() and len(before.split()) >= 2
    if not match.group("mark"):
        return True  # a new line or "; "
    if "\n" in match.group("gap"):
        return True
    mark = match.group("mark")
    if match.group("close") and following.islower():
        return False  # '"Why?" she asked'
    if "!" in mark or "?" in mark:
        return True
    if len(mark) > 1 or mark == "…":
        return following.isupper()
    return _period_ends(text, start, match.start(), following)


def sentence_spans(text: str) -> Iterator[tuple[int, int, int]]:
    """Each sentence of ``text`` as (start, end, where the separator after it ends); the
    spans and separators cover the whole text, in order."""
    start = 0
    for match in _BOUNDARY.finditer(text):
        if not _ends(text, start, match):
            continue
        if match.group("mark"):
            end = match.start("gap")
        elif match.group("emoji"):
            end = match.start("egap")
        else:
            end = match.start()
        yield start, end, match.end()
        start = match.end()
    yield start, len(text), len(text)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, empty ones left out."""
    pieces = (text[start:end].strip() for start, end, _after in sentence_spans(text))
    return [piece for piece in pieces if piece]
