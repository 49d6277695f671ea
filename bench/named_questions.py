"""A set's conversations as two people who call each other by name, asked about by name.

Public long-conversation benchmarks are chats between two named people, and their questions
name them ("When did Caroline go to the support group?"); their sessions open with greetings
that name the other ("Hey Mel! Good to see you!"). ``bench/recall_quality.py --named`` asks a
set that way: each session's first message greets the friend by name and the first answer
greets the person back, the last says goodbye by name, and each question is put in the third
person: the person's own words ("I", "my", "eu", "meu") become their name and the friend's
("you", "your", "tu", "teu", "você") the friend's. The words' grammar suffers ("What do Maya
do for a living?"); a search reads words, not grammar. The two names are the set's
``parties``, which the daemon knows as its user's and its persona's names.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FRIEND", "named"]

#: the friend's name (the persona's side), in each language; no set's conversations say it
FRIEND = {"en": "Robin", "pt": "Teresa"}

_GREETING = {
    "en": ("Hey {}! ", "Hi {}! ", " Bye for now, {}!"),
    "pt": ("Oi {}! ", "Olá {}! ", " Beijinhos, {}!"),
}
_OWN = {
    "en": {"i": "{}", "me": "{}", "my": "{}'s", "mine": "{}'s", "myself": "{}", "i'm": "{} is"},
    "pt": {
        "eu": "{}",
        "mim": "{}",
        "me": "{}",
        "meu": "de {}",
        "minha": "de {}",
        "meus": "de {}",
        "minhas": "de {}",
    },
}
_FRIENDS = {
    "en": {"you": "{}", "your": "{}'s", "yours": "{}'s", "yourself": "{}", "you're": "{} is"},
    "pt": {
        "tu": "{}",
        "você": "{}",
        "voce": "{}",
        "te": "{}",
        "teu": "de {}",
        "tua": "de {}",
        "teus": "de {}",
        "tuas": "de {}",
        "seu": "de {}",
        "sua": "de {}",
    },
}
_WORD = re.compile(r"[^\W\d_]+(?:'[a-z]+)?")


def _third_person(question: str, lang: str, person: str, friend: str) -> str:
    own, friends = _OWN[lang], _FRIENDS[lang]

    def name(match: re.Match[str]) -> str:
        word = match.group(0).lower()
        if word in own:
            return own[word].format(person)
        if word in friends:
            return friends[word].format(friend)
        return match.group(0)

    return _WORD.sub(name, question)


def named(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with greetings by name in every session and its questions in the third
    person (changed in place, and returned)."""
    for user in data["users"]:
        lang = user.get("lang", "en")
        person, friend = user["user"].capitalize(), user.get("friend", FRIEND[lang])
        hello, hello_back, bye = _GREETING[lang]
        for session in user["sessions"]:
            turns = session["turns"]
            turns[0]["user"] = hello.format(friend) + turns[0]["user"]
            turns[0]["reply"] = hello_back.format(person) + turns[0]["reply"]
            turns[-1]["reply"] = turns[-1]["reply"] + bye.format(person)
        user["parties"] = [person, friend]
        for question in user["questions"]:
            question["question"] = _third_person(
                question["question"], question.get("lang", lang), person, friend
            )
    return data
