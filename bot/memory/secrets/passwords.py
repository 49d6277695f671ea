"""Passwords as people say them in chat, for :mod:`bot.memory.secrets.speech`. Each rule
reads one sentence of folded text:

- a passphrase of three words or more after its name;
- a password changed to a value ("changed my bank password to Manga2024", "mudei a senha para
  X", "changed my pin to ..."), or set, typed or said to be another's in a sentence that names
  one ("enter Maple77! when it asks for the password", "senha do app: a mesma do email,
  pitanga77"), or by its recipe ("the dog's name plus the year we got him, so Biscuit2014",
  "the dog's name with 3 and an exclamation mark: Rex3!");
- a password spelled out aloud ("um capital b blueberry nineteen eighty eight"), and the new
  or the old one of a key ("guest wifi changed, new one is SunnyDays2025").

With them run the rules of a quoted passphrase beside its word
(:mod:`bot.memory.secrets.quoted_passwords`), of a value by the way in it gives
(:mod:`bot.memory.secrets.ways_in`) and of a password beside its name
(:mod:`bot.memory.secrets.sign_in_pairs`); the words that name a password and those that may
be one are in :mod:`bot.memory.secrets.password_words`.
"""

from __future__ import annotations

import re

from bot.memory.secrets.password_words import MIXED, NOT_MIXED, names_password, one_values
from bot.memory.secrets.phrase_patterns import NOT_KEY_OF
from bot.memory.secrets.quoted_passwords import quoted_passphrases
from bot.memory.secrets.seeds import SENTENCE_WORDS
from bot.memory.secrets.sign_in_pairs import pair_spans
from bot.memory.secrets.values import Span, value_span
from bot.memory.secrets.ways_in import way_in_spans

__all__ = ["password_spans"]


#: "changed my bank password to X", "mudei a senha do banco para X"
_CHANGED = re.compile(
    r"\b(?:changed|change|changing|updated|update|updating|set|setting|switched|switch|reset"
    r"|resetting|made|make|mudei|mudou|mudando|trocando|alterando"
    r"|troquei|trocou|alterei|alterou|coloquei|botei|defini|mudamos|trocamos|pus|pos|pusemos"
    r"|puseram|meti|metemos|colocamos|colocou|botamos|definimos)\b"
    r"[^.!?\n]{0,40}?\b(?P<key>password|passwd|passcode|pw|pwd|pass ?phrase|senha"
    rf"|palavra[ -]?passe|pin|combo)\b{NOT_KEY_OF}[^.!?\n]{{0,30}}?"
    r"\b(?P<to>to|into|para|pra|pro|as|como|from|de)[ ]+(?P<value>\S+)"
)


#: "I made the kindle password pumpkinpie": the value straight after, ending the sentence
_MADE = re.compile(
    r"\b(?:made|make|fiz|deixei)\b[^.!?\n]{0,40}?\b(?:password|passwd|passcode|pw|senha)[ ]+"
    r"(?P<value>[^\s.!?,;]+)[.!]?[ ]*$"
)


#: a sentence that sets or picks a password: "I set the laptop password to my dog's name
#: plus 99, so rex99", "usei Lisboa#22 na senha nova"; its words of letters and digits
#: mixed (or with symbols among them) are the value, however it is introduced
_SETS_PASSWORD = re.compile(
    r"\b(?:set|sets|changed|change|updated|reset|made|make|picked|pick|chose|choose|use|used"
    r"|using|went with|type|enter|mudei|mudou|troquei|trocou|alterei|alterou|coloquei|botei"
    r"|defini|pus|escolhi|usei|uso|digita|digite|introduz|introduza)\b"
)


_NUMERIC_KEY = re.compile(r"pin|code|codigo|combination|combo|combinacao")


#: what follows "changed ... to" when no value does
_NOT_CHANGED_TO = re.compile(
    r"(?:a|an|the|my|his|her|our|their|your|something|anything|one|another|uma|um|outra"
    r"|outro|algo|alguma|algum|a mesma|o mesmo|the same|minha|meu|sua|seu|nossa|nosso|o|os|as"
    r"|que|what|whatever|qualquer|it|isso|this|that|esta|essa|default|padrao|nova|novo|new"
    r"|favorit[eao]s?|favourites?|principal|primary|automatic\w*|obrigatori[ao]|required"
    r"|optional|opcional|temporar\w*|provisori[ao]|lembrete|reminder|dica|hint)"
    r"(?=[ ,.;:!?)]|$)"
)


def _changed_to(start: int, sentence: str) -> list[Span]:
    spans = []
    made = _MADE.search(sentence)
    matches = [*_CHANGED.finditer(sentence), *([made] if made else [])]
    for match in matches:
        value = match.group("value")
        if match.re is _MADE and re.search(r"(?:er|ly|est)$", value):
            continue  # "made the password longer"
        if _NOT_CHANGED_TO.match(value) or not any(c.isalnum() for c in value):
            continue
        if match.groupdict().get("to") in ("from", "de") and (value.isalpha() or len(value) < 3):
            continue  # "changed the password from home", "from 4 digits to 6 digits"
        key = match.groupdict().get("key") or "password"
        kind = "pin" if key == "pin" else "code" if _NUMERIC_KEY.fullmatch(key) else "password"
        if kind != "password" and not any(c.isdigit() for c in value):
            continue  # "changed the code to the new one"
        end = match.end("value")
        if value[0] in "\"'“":
            closing = re.search(r"[\"'”]", sentence[match.start("value") + 1 :])
            if closing:
                end = match.start("value") + 1 + closing.end()
        else:
            end -= len(value) - len(value.rstrip(",;:!?)"))
        spans.append(Span(start + match.start("value"), start + end, kind))
    return spans


#: how a password was made, with no word for it: "the dog's name plus the year we got him,
#: so Biscuit2014", "o nome do gato e o ano"
_RECIPE = re.compile(
    r"\b(?:name|nome)\b[^.!?\n]{0,40}\b(?:plus|and|with|mais|e|com)\b[^.!?\n]{0,30}"
    r"\b(?:year|ano|number|numero|birthday|aniversario|digits|digitos|date|data)\b|[a-z] ?\+ ?\d"
    r"|\b(?:the same as|same one as|a mesma d[aoe]|o mesmo d[aoe]|igual (?:a|ao|a do|ao do))\b"
    r"[^.!?\n]{0,40}(?:\b(?:but|except|plus|only|just|with|mas|so que|porem|com|mais)\b|\bw/)"
)


#: how a password named in the sentence was made, a name and what was added to it: "the
#: password is the dog's name with 3 and an exclamation mark: Rex3!", "my cat's name then 99 so
#: Mittens99", "o nome do cachorro com três e um ponto de exclamação"
_MADE_OF = re.compile(
    r"\b(?:name|nome|surname|sobrenome|nickname|apelido|birthday|aniversario|word|palavra)\b"
    r"[^.!?\n]{0,40}?\b(?:plus|and|with|then|followed by|mais|e|com|seguido de|depois)[ ]+"
    r"(?:(?:a|an|the|um|uma|o|os)[ ]+)?(?:\d|(?:one|two|three|four|five|six|seven|eight|nine"
    r"|ten|dois|duas|tres|quatro|cinco|seis|sete|oito|nove|dez|exclamation|symbol|hash|at sign"
    r"|dollar|underscore|asterisk|ponto de exclamacao|exclamacao|simbolo|arroba|cifrao"
    r"|cardinal|asterisco|sublinhado|underline)\b)"
)


#: a question about how good a value is as a password: "is Rainbow77 a strong enough
#: password?", "does k8Rt22mxLp09vQ have enough characters to be the WPA2 key?"
_ASKS_STRENGTH = re.compile(
    r"\b(?:strong|weak|safe|secure|easy|hard|guess\w*|enough|good|long|short|seguro|segura|forte"
    r"|fraca|fraco|facil|dificil|boa|bom|adivinhar|suficiente|characters|caracteres)\b"
)


_STRENGTH_KEY = re.compile(
    r"\b(?:login|key|chave|wpa2?)\b(?![ ]+(?:page|screen|form|button|flow|system|pagina|tela))"
)


#: a password said to be another's, then given after a comma: "senha do app: a mesma do email,
#: pitanga77", "wifi password is the same as the router's, Lontra#8"
_SAME_AS_THEN = re.compile(
    r"\b(?:the same as|same as|same one as|a mesma d[aoe]s?|o mesmo d[aoe]s?|igual (?:a|ao|as|aos)"
    r")\b[^.!?\n,]{0,40},"
)


def _set_password(start: int, sentence: str) -> list[Span]:
    """The words of letters and digits of a sentence that sets a password, says how one was
    made, says whose it is the same as, or asks whether one is good enough."""
    password = names_password(sentence)
    asked = _ASKS_STRENGTH.search(sentence) and (password or _STRENGTH_KEY.search(sentence))
    named = (
        password
        and (
            _SETS_PASSWORD.search(sentence)
            or _MADE_OF.search(sentence)
            or _SAME_AS_THEN.search(sentence)
        )
    ) or asked
    if not (named or _RECIPE.search(sentence)):
        return []
    return [
        Span(start + m.start(), start + m.end(), "password")
        for m in MIXED.finditer(sentence)
        if not NOT_MIXED.fullmatch(m.group(0))
    ]


#: "the passphrase for the drive is correct horse battery staple": three words or more
#: after a passphrase's name, none of them the small words of a sentence about it
_PASSPHRASE = re.compile(
    r"\b(?:pass ?phrase|frase[ -]senha|frase secreta|frase[ -]passe)\b[^.!?\n]{0,40}?"
    r"(?:\bis\b|\bwas\b|\be\b|\beh\b|:|-)[ ]*[\"'“‘«(\[]?(?P<value>[a-z]+(?:[ ]+[a-z]+){2,11})"
)


def _passphrase(start: int, sentence: str) -> list[Span]:
    spans = []
    for m in _PASSPHRASE.finditer(sentence):
        if not set(m.group("value").split()) & SENTENCE_WORDS:
            spans.append(value_span(start, m))
    return spans


#: a password spelled out aloud, as a voice note is written down: "the netflix password is
#: um capital b blueberry nineteen eighty eight exclamation mark"; from the words after its
#: copula (and any "um" or "uh") to the end of the sentence
_SPELLED = re.compile(
    r"\b(?:password|passwd|passcode|pw|senha|palavra[ -]passe|pin)\b[^.!?\n]{0,40}?"
    r"\b(?:is|was|e|eh|era|:)[ ]+(?:(?:um+|uh+|uhm|erm|er|like|so|tipo|hum)[ ,]+)*+"
    r"(?!(?:long|short|case|weak|strong|easy|hard|simple|too|very|really|just|all|supposed|the"
    r"|same|a mesma|o mesmo"
    r"|meant|required|needs?|must|should|has|have|tem|deve|precisa|longa|curta|fraca|forte)\b)"
    r"(?P<value>(?=[^.!?\n]{0,120}?\b(?:capital|upper ?case|lower ?case|small letter|all caps"
    r"|exclamation|underscore|hashtag|hash sign|at sign|dollar sign|dash|hyphen|asterisk"
    r"|maiuscul\w*|minuscul\w*|exclamacao|underline|sublinhado|arroba|cifrao|tracinho"
    r"|asterisco)\b)[^.!?\n]{1,160})"
)


#: the value given for the key of the sentence as "the new one" or "the old one": "guest wifi
#: changed, new one is SunnyDays2025", "mudei a senha, a nova é Girassol#3"
_ONE_IS = re.compile(
    r"\b(?:password|passwd|passcode|pw|pin|code|wifi|wi-fi|senha|codigo|palavra[ -]passe)\b"
    r"[^.!?\n]{0,60}?\b(?:(?:the )?(?:new|old|current|temporary|temp|previous|guest) one"
    r"|(?:a|o) (?:nova|novo|antiga|antigo|atual|provisoria|provisorio))"
    r"[ ]+(?:is|was|e|eh|era|:|-+>)[ ]*(?P<value>[^\s,;]{3,64})"
)


#: a letter or a number said in a spelled-out password: "capital b", "nineteen", "7"
_SPELLED_PART = re.compile(
    r"(?<!['’])\b(?:[a-z]|\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty"
    r"|sixty|seventy|eighty|ninety|hundred|um|dois|tres|quatro|cinco|seis|sete|oito|nove|dez)\b"
)


def _spelled(start: int, sentence: str) -> list[Span]:
    return [
        value_span(start, m)
        for m in _SPELLED.finditer(sentence)
        if _SPELLED_PART.search(m.group("value"))  # not "the pin is capital of drama lol"
    ]


#: a sentence about a network's name, whose "guest one" is another network, not a key: "our
#: Wi-Fi network's called SmithFamily_5G, the guest one is SmithFamily_Guest"
_NETWORK_NAMED = re.compile(
    r"\b(?:ssid|network'?s?(?: is)? (?:called|named)|network name|nome da rede"
    r"|a rede (?:se )?chama)\b"
)


def _one_is(start: int, sentence: str) -> list[Span]:
    spans = one_values(start, _ONE_IS, sentence)
    if spans and _NETWORK_NAMED.search(sentence) and not names_password(sentence):
        return []
    return spans


def password_spans(start: int, sentence: str, text: str = "") -> list[Span]:
    """Every password of ``sentence`` (folded, at ``start`` in ``text``) the rules above and
    those of :mod:`~bot.memory.secrets.ways_in` and :mod:`~bot.memory.secrets.sign_in_pairs`
    find, unordered; the rule that needs capitals runs only with ``text``."""
    return [
        *quoted_passphrases(start, sentence),
        *_changed_to(start, sentence),
        *_set_password(start, sentence),
        *_passphrase(start, sentence),
        *_spelled(start, sentence),
        *_one_is(start, sentence),
        *way_in_spans(start, sentence),
        *pair_spans(start, sentence, text),
    ]
