"""Secrets as people say them in chat, beside the key phrases of
:mod:`bot.memory.policy_secrets`.

Each rule runs on folded text (lower case, no accents, offsets kept) and gives the
:class:`~bot.memory.policy_secret_values.Span` of a value with its kind:

- codes and PINs said digit by digit, in words or figures ("seven three one nine",
  "quatro dois zero zero", "6 6 1 9"), in a sentence about a code, PIN or combination or about
  a lock, safe, alarm or card;
- a lock's or safe's numbers with no word for them ("the shed's lock opens with 4-19-33",
  "o cofre abre com 1984");
- a quoted passphrase, before or after its word ('"otter pancake" is my passphrase');
- a seed or recovery phrase: twelve words or more after its name, on the same line or the next;
- a password changed to a value ("changed my bank password to Manga2024", "mudei a senha para
  X");
- the digits on the back of a card ("the three digits on the back of my visa are 482").

What is not a value is left: times ("the alarm goes off at six thirty"), counting, a quoted
book title, a sentence about a PIN that gives none.
"""

from __future__ import annotations

import re

from bot.memory.policy_secret_values import Span

__all__ = ["DIGIT_RUN", "spoken_secrets"]

_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;](?=\S)[^.!?;\n]*)*")

#: digits said as words, English and Portuguese ("meia" is six in a Brazilian phone number)
_DIGIT_WORD = (
    r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|um|uma|dois|duas|tres|quatro"
    r"|cinco|seis|meia|sete|oito|nove|\d)"
)
#: three digits or more, one at a time: "four four two one", "6 6 1 9", "sete, dois, nove"
DIGIT_RUN = re.compile(
    rf"(?<![\w-]){_DIGIT_WORD}(?:(?:[ ]*[,-][ ]*|[ ]+)(?:e[ ]+)?{_DIGIT_WORD}){{2,11}}(?![\w:/])"
)
#: what a sentence about a spoken code names
_CODE_TOPIC = re.compile(
    r"\b(?:pin|pins|codes?|codigos?|combinations?|combinacao|combo|passcode|senha|cvv2?|cvc"
    r"|digits|digitos|lock|locks|padlock|safe|vault|locker|keypad|alarm|alarme|cofre|cadeado"
    r"|fechadura|armario|card|cartao|atm|sim|disarm|desarma\w*|unlock|desbloque\w*)\b"
)
#: a lock, safe or alarm: its numbers are a secret even without the word "code"
_LOCK = (
    r"(?:lock|locks|padlock|safe|vault|locker|keypad|alarm|garage|gate|door|cofre|cadeado"
    r"|fechadura|armario|alarme|portao|porta|garagem|teclado)"
)
_LOCK_WORD = re.compile(rf"\b{_LOCK}\b")
#: what follows a number that is a time, a size or a price, not a code
_NOT_A_CODE = (
    r"(?:am|pm|h|hs|o'?clock|m|cm|km|kg|meters?|metres?|metros?|feet|ft|years?|anos|days?|dias"
    r"|minutes?|minutos|hours?|horas|pages|paginas|reais|euros?|dollars?|pounds?|%|people"
    r"|pessoas)\b"
)
#: the verb that gives a lock's numbers: "opens with", "takes", "type", "abre com", "is set to"
_LOCK_VALUE = re.compile(
    r"(?:\bopens? with|\bopened with|\btakes|\btype|\bpunch in|\benter|\bset to|\bis|\bare|:"
    r"|\babre com|\babrem com|\bdesarma com|\bdigit[ea]|\besta em|\bfica em|\be\b|\beh\b)"
    r"[ ]*(?:the |o |a )?(?P<value>\d{1,2}(?:[ -]\d{1,2}){2,4}|\d{3,8})"
    rf"(?![\w:/.,]?\d|[ ]*{_NOT_A_CODE})"
)
#: the copula or colon before a value
_GIVES = r"(?:\bis\b|\bare\b|\bwas\b|\bnow\b|:|=|\be\b|\beh\b|\bsao\b|\bera\b|\bficou\b)"
#: the digits on the back of a card
_CARD_BACK = re.compile(
    r"\b(?:back|behind|reverse|atras|tras|verso)\b[^.!?\n]{0,40}?"
    rf"{_GIVES}[ ]*(?P<value>\d{{3,4}})\b(?![.,:/]\d)"
)
_CARD_WORD = re.compile(
    r"\b(?:card|cards|cartao|visa|mastercard|master|amex|elo|debit|credit|credito|debito)\b"
)

#: the words for a passphrase, a quoted one's neighbours
_PASS_WORD = re.compile(
    r"\b(?:pass ?phrase|password|passwd|pw|senha|frase[ -]senha|frase secreta|palavra[ -]passe"
    r"|master password)\b"
)
#: a first-person way in that names no password word: "... is what I type to unlock my diary"
_UNLOCK = re.compile(
    r"\b(?:what i (?:type|enter|use|put in) to (?:unlock|open|log ?in|sign in|get into)"
    r"|(?:escrevo|digito|uso|ponho|meto) para (?:desbloquear|abrir|entrar))\b"
)
_QUOTED = re.compile(r"[\"“”«](?P<q>[^\"“”«»\n]{2,80})[\"“”»]|(?<!\w)'(?P<s>[^'\n]{2,80})'(?!\w)")

#: a seed phrase's names, then twelve words or more
_SEED_NAME = (
    r"(?:seed(?: phrase| words)?|recovery (?:phrase|words|seed)|mnemonic(?: phrase)?"
    r"|backup (?:phrase|words)|wallet (?:phrase|words|seed)|secret recovery phrase"
    r"|\d{2}[- ]words?(?: backup| phrase)?|frase (?:de recuperacao|semente|de backup)"
    r"|palavras(?: de recuperacao| da carteira| de backup)?|\d{2} palavras)"
)
_SEED = re.compile(
    rf"\b{_SEED_NAME}\b[^\n:]{{0,40}}?(?::|\bis\b|\bare\b|\be\b|\bsao\b|-|\n)[ ]*\n?[ ]*"
    r"(?P<value>[a-z]{3,8}(?:[ ,]+[a-z]{3,8}){11,23})\b"
)
#: words that a sentence has and a seed phrase of the BIP 39 lists has not
_NOT_SEED = frozenset(
    "the and that this with from your have will what when where which are was were not you"
    " que com para pra por uma meu minha nao sim isso esse essa dos das nos nas mas".split()
)

#: "changed my bank password to X", "mudei a senha do banco para X"
_CHANGED = re.compile(
    r"\b(?:changed|change|updated|update|set|switched|switch|reset|made|make|mudei|mudou"
    r"|troquei|trocou|alterei|alterou|coloquei|botei|defini|mudamos|trocamos)\b"
    r"[^.!?\n]{0,40}?\b(?:password|passwd|passcode|pw|pwd|pass ?phrase|senha)\b[^.!?\n]{0,30}?"
    r"\b(?:to|into|para|pra|pro|as|como)[ ]+(?P<value>\S+)"
)
#: "I made the kindle password pumpkinpie": the value straight after, ending the sentence
_MADE = re.compile(
    r"\b(?:made|make|fiz|deixei)\b[^.!?\n]{0,40}?\b(?:password|passwd|passcode|pw|senha)[ ]+"
    r"(?P<value>[^\s.!?,;]+)[.!]?[ ]*$"
)
#: what follows "changed ... to" when no value does
_NOT_CHANGED_TO = re.compile(
    r"(?:a|an|the|my|his|her|our|their|your|something|anything|one|another|uma|um|outra"
    r"|outro|algo|alguma|algum|a mesma|o mesmo|the same|minha|meu|sua|seu|nossa|nosso|o|os|as"
    r"|que|what|whatever|qualquer|it|isso|this|that|esta|essa|default|padrao|nova|novo|new)"
    r"(?=[ ,.;:!?)]|$)"
)


def _digit_runs(start: int, sentence: str) -> list[Span]:
    if not _CODE_TOPIC.search(sentence):
        return []
    spans = []
    for match in DIGIT_RUN.finditer(sentence):
        words = re.findall(r"\w+", match.group(0))
        if len([w for w in words if w != "e"]) >= 3:
            spans.append(Span(start + match.start(), start + match.end(), _code_kind(sentence)))
    return spans


def _code_kind(sentence: str) -> str:
    if re.search(r"\bpin\b|\bsim\b|\batm\b|senha", sentence):
        return "pin"
    if re.search(r"\bcvv|\bcvc|\bback\b|\batras\b|\bverso\b", sentence):
        return "card"
    return "code"


def _lock_numbers(start: int, sentence: str) -> list[Span]:
    if not _LOCK_WORD.search(sentence):
        return []
    return [
        Span(start + m.start("value"), start + m.end("value"), "code")
        for m in _LOCK_VALUE.finditer(sentence)
        if not re.search(
            r"\b(?:number|numero|no|room|sala|quarto|floor|andar)\W*$", sentence[: m.start("value")]
        )
    ]


def _card_back(start: int, sentence: str) -> list[Span]:
    if not _CARD_WORD.search(sentence):
        return []
    return [
        Span(start + m.start("value"), start + m.end("value"), "card")
        for m in _CARD_BACK.finditer(sentence)
    ]


def _quoted_passphrase(start: int, sentence: str) -> list[Span]:
    """A quoted string beside a password word (or a first-person way in) outside it: the
    quote is the passphrase."""
    if not (_PASS_WORD.search(sentence) or _UNLOCK.search(sentence)):
        return []
    spans = []
    for match in _QUOTED.finditer(sentence):
        inside = match.group("q") or match.group("s") or ""
        outside = sentence[: match.start()] + " " + sentence[match.end() :]
        named = _PASS_WORD.search(outside) or _UNLOCK.search(outside)
        if named and not _PASS_WORD.search(inside):
            spans.append(Span(start + match.start(), start + match.end(), "password"))
    return spans


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
        end = match.end("value")
        if value[0] in "\"'“":
            closing = re.search(r"[\"'”]", sentence[match.start("value") + 1 :])
            if closing:
                end = match.start("value") + 1 + closing.end()
        else:
            end -= len(value) - len(value.rstrip(",;:!?)"))
        spans.append(Span(start + match.start("value"), start + end, "password"))
    return spans


def _seeds(folded: str) -> list[Span]:
    spans = []
    for match in _SEED.finditer(folded):
        words = re.findall(r"[a-z]+", match.group("value"))
        if sum(word in _NOT_SEED for word in words) <= 1:
            spans.append(Span(*match.span("value"), "seed"))
    return spans


def spoken_secrets(folded: str) -> list[Span]:
    """Every value of the folded text ``folded`` that the rules above find, unordered."""
    spans = _seeds(folded)
    for sentence_match in _SENTENCE.finditer(folded):
        start, sentence = sentence_match.start(), sentence_match.group(0)
        spans += _digit_runs(start, sentence)
        spans += _lock_numbers(start, sentence)
        spans += _card_back(start, sentence)
        spans += _quoted_passphrase(start, sentence)
        spans += _changed_to(start, sentence)
    return spans
