"""Codes and PINs as people say them in chat: the numbers of a lock, a safe, an alarm, a keypad,
a PIN or a code sent by text, for :mod:`bot.memory.secrets.speech`.

Each rule reads one sentence of folded text (lower case, no accents, offsets kept) and gives
the :class:`~bot.memory.secrets.values.Span` of each value with its kind:

- codes and PINs said digit by digit, in words or figures ("seven three one nine",
  "quatro dois zero zero", "6 6 1 9", "Four. Eight. Two. One."), or in numbers of two digits
  as a dial's are ("twelve thirty four", "vinte e dois, catorze, trinta e seis"), in a sentence
  about a code, PIN or combination or about a lock, safe, alarm or card;
- a lock's or safe's numbers with no word for them ("the shed's lock opens with 4-19-33",
  "o cofre abre com 1984", "left to 12, right to 30", "7719 - that's the shed padlock");
- the numbers of a sentence about a PIN, a cash machine or a lock ("my pin is dad's birthday,
  0612"), unless the word before one says what else it is ("number", "room", "at", "cost");
- a code sent by text ("the hospital portal just texted me 582 104, type that in", "4821 is
  your Uber code").

What is not a value is left: times ("the alarm goes off at six thirty"), counting, sizes and
prices, a thing's model ("our lock is a Yale 3000"), a year ("2019, that's the year the pin
changed"), a service's port ("porta: 5432" beside "host: localhost").
"""

from __future__ import annotations

import re

from bot.memory.secrets.values import Span, text_before

__all__ = [
    "CODE_NUMBER",
    "CODE_TOPIC",
    "DIGIT_RUN",
    "NOT_A_CODE",
    "NOT_SIBLING",
    "ONLY_NUMBER",
    "POSTAL",
    "SAID_NUMBERS",
    "SLOW_DIGITS",
    "YEAR",
    "code_kind",
    "code_spans",
    "names_service",
    "text_before",
    "words_before",
]

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
CODE_TOPIC = re.compile(
    r"\b(?:pin|pins|codes?|keycodes?|codigos?|cod(?=\.)|combinations?|combinacao|combo|passcode"
    r"|senha|snh|cvv2?|cvc|digits|digitos|lock|locks|padlock|safe|vault|locker|keypad|alarm"
    r"|alarme|cofre|cadeado|fechadura|armario|card|cartao|atm|sim|disarm|desarma\w*|unlock"
    r"|desbloque\w*|lockbox|key ?box|intercom|buzzer|interfone|porteiro|digit[ae]|type|punch"
    r"|dial|enter)\b"
)


#: a lock, safe or alarm: its numbers are a secret even without the word "code"
_LOCK = (
    r"(?:lock|locks|padlock|lockbox|key ?box|key safe|safe|vault|locker|keypad|alarm|garage|gate"
    r"|door|intercom|buzzer|pad|panel|siren|cofre|cadeado|fechadura|armario|alarme|portao|porta"
    r"|garagem|teclado|painel|sirene"
    r"|interfone|porteiro)"
)


_LOCK_WORD = re.compile(rf"\b{_LOCK}\b")


#: what follows a number that is a time, a size or a price, not a code
NOT_A_CODE = (
    r"(?:am|pm|h|hs|o'?clock|m|cm|km|kg|meters?|metres?|metros?|feet|ft|years?|anos|days?|dias"
    r"|minutes?|minutos|hours?|horas|pages|paginas|reais|euros?|dollars?|pounds?|yen|%|people"
    r"|pessoas|pins|players|jogadores|times|vezes|points|pontos|photos|fotos|emails|messages"
    r"|unread|calories|calorias|kcal|cal|lines|linhas|words|palavras)\b"
)


#: the verb that gives a lock's numbers: "opens with", "takes", "type", "abre com", "is set to"
#: a turn of a dial: "32 to the left"
_TURN = r"\d{1,2}[ ]+(?:to|para)[ ]+(?:the[ ]+|a[ ]+)?(?:left|right|esquerda|direita)"


_LOCK_VALUE = re.compile(
    r"(?:\bopens? with|\bopens?\b|\bopened with|\b(?:dis)?arm(?:s|ed)? with|\bunlock(?:s|ed)? with"
    r"|\b(?:turn|switch)(?:s|ed|es)? off with|\btakes|\btype|\bpunch in|\benter|\bset to|\bis"
    r"|\bare|\bnow|\bgoes|\bbuzz|\bpress|\bdial|\bkey in|\btap|\bpunch|:|\babre com|\babrem com"
    r"|\bdesarma com|\bdesliga com|\bdestranca com"
    r"|\bdesbloqueia com|\bdigit[ea]|\besta em|\bfica em|\be\b|\beh\b|\bagora)"
    r"[ ]*(?:the |o |a )?(?:[#*]|(?:star|hash|asterisco|estrela|cardinal|jogo da velha)[ ]+)?"
    r"(?P<value>\d{1,2}(?:[ -]\d{1,2}){2,4}|\d{3,8}"
    r"|\d{1,2}[ ]*(?:left|right|l|r|esquerda|direita)(?:[ ,]+(?:then[ ]+)?\d{1,2}[ ]*"
    r"(?:left|right|l|r|esquerda|direita)){1,4}"
    r"|(?:left|right|esquerda|direita)[ ]*(?:to|para|a|ate)?[ ]*\d{1,2}(?:[ ,]+(?:then[ ]+)?"
    r"(?:left|right|esquerda|direita)[ ]*(?:to|para|a|ate)?[ ]*\d{1,2}){1,4}"
    rf"|{_TURN}(?:[ ,]+(?:then[ ]+)?{_TURN}(?:[ ]+again)?){{1,4}})"
    rf"(?![\w:/.,]?\d|[ ]*{NOT_A_CODE})"
)


#: a lock's number that closes its sentence after a comma or a colon ("the key for the
#: storage unit keypad, 6060"), unless it is a year, a street's or a room's number
_LOCK_LAST = re.compile(r"[,:][ ]*(?P<value>\d{4,8})[ ]*[.!]?[ ]*$")


#: a lock's number that opens its sentence: "7719 - that's the shed padlock", "*2580* abre o
#: portão"
_LOCK_FIRST = re.compile(
    rf"[ ]*[#*]?(?P<value>\d{{3,8}}|\d{{1,2}}(?:-\d{{1,2}}){{2,4}})[#*]?"
    rf"(?![\w.,/:]?\d|[ ]*{NOT_A_CODE})"
    r"(?=[ ]*(?:[-–—:,=]|is\b|e\b|eh\b|opens\b|abre\b|(?:that|it)'?s\b|for\b|para\b|pra\b))"
)


#: the word before a number that says what else it is: a room's, a street's, a bus's, a
#: time, a year, a price, a phone's, a thing's model
_ELSEWHERE = (
    r"number|numero|no|room|sala|quarto|floor|andar|at|as|in|em|since|desde|until|ate|year|ano"
    r"|model|modelo"
    r"|street|rua|avenue|avenida|bus|line|linha|flight|voo|page|pagina|cost|costs|custou|custa"
    r"|paid|tel|phone|telefone|call|ligar|order|pedido|station|estacao|level|nivel|platform"
    r"|plataforma|seat|lugar|bay|desk|table|mesa|route|rota|exit|saida|score|points|pontos"
    r"|entidade|referencia|ref|reference|valor|total|montante|amount|invoice|fatura|factura"
)


#: ... and a few more that may stand before a code too, where a sentence gives none yet
_ELSEWHERE_UNLESS_GIVEN = rf"{_ELSEWHERE}|on|by|from|de|for|por|liga|to|para"


_NOT_LOCK_LAST = re.compile(rf"\b(?:{_ELSEWHERE_UNLESS_GIVEN})\W*$")
#: the same beside a code already given or a lock's verb, where "from" and "de" lead to a
#: code too: "changed my pin from 2580 to 9174"
NOT_SIBLING = re.compile(rf"\b(?:{_ELSEWHERE})\W*$")
#: the groups of a number written in groups before one of them: "123 456 " before "789"
_GROUPS_BEFORE = re.compile(r"(?<![\w.,/:-])(?:\d{1,4}[ ])+$")


def words_before(sentence: str, at: int) -> str:
    """The few words of ``sentence`` before the number at ``at``, read from the first group
    of the number it is one of: "referência 123 456 789" is a reference all through, "phone
    912 345 678" a phone's number (its last groups are not codes of their own)."""
    before = text_before(sentence, at)
    groups = _GROUPS_BEFORE.search(before)
    if groups is None:
        return before
    return text_before(sentence, at - len(before) + groups.start())


#: a year: beside a lock, "2019" is when, not its code
YEAR = re.compile(r"(?:19|20)\d\d")


#: a number of two digits said as words: "twelve", "thirty-four", "trinta e quatro"
_TWO_DIGIT_WORD = (
    r"(?:(?:twenty|thirty|forty|fourty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[ -](?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
    r"|(?:vinte|trinta|quarenta|cinquenta|sessenta|setenta|oitenta|noventa)"
    r"(?:[ ]e[ ](?:um|uma|dois|duas|tres|quatro|cinco|seis|sete|oito|nove))?"
    r"|dez|onze|doze|treze|catorze|quatorze|quinze|dezesseis|dezasseis|dezessete|dezassete"
    r"|dezoito|dezenove|dezanove)"
)


#: a combination said in numbers of two digits, as a dial's are: "twelve thirty four",
#: "vinte e dois, catorze, trinta e seis"; two numbers or more, one of them of two digits
SAID_NUMBERS = re.compile(
    rf"(?<![\w-])(?=(?:{_DIGIT_WORD}(?:[ ]*,[ ]*|[ ]+))*{_TWO_DIGIT_WORD}(?![\w-]))"
    rf"(?:{_TWO_DIGIT_WORD}|{_DIGIT_WORD})(?:(?:[ ]*,[ ]*|[ ]+)(?:{_TWO_DIGIT_WORD}|{_DIGIT_WORD}))"
    r"{1,5}(?![\w-])"
)


#: the words before a number said as words that make it a time or a price ("the alarm goes
#: off at six forty five", "o cofre custou trinta e cinco"), or another number
_NOT_SAID_CODE = re.compile(
    rf"\b(?:{_ELSEWHERE_UNLESS_GIVEN}|around|till|before|after|pelas|pelos|das|antes|depois"
    r")\W*$"
)


#: the words that start a number of two digits said as words
_TENS_AND_TEENS = frozenset(
    """
    ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty
    thirty forty fourty fifty sixty seventy eighty ninety dez onze doze treze catorze quatorze
    quinze dezesseis dezasseis dezessete dezassete dezoito dezenove dezanove vinte trinta
    quarenta cinquenta sessenta setenta oitenta noventa
    """.split()
)
_WORD = re.compile(r"[a-z]+")


#: what follows a number said as words that tells the time or a size
_SAID_NOT_A_CODE = re.compile(rf"[ ]*(?:{NOT_A_CODE}|o'?clock)")


def _said_numbers(start: int, sentence: str) -> list[Span]:
    """A lock's or a code's numbers said as words of two digits ("the combination for the
    bike lock is twelve thirty four"), unless they tell the time or a price; in a sentence
    about a code or a lock."""
    if _TENS_AND_TEENS.isdisjoint(_WORD.findall(sentence)):
        return []
    return [
        Span(start + m.start(), start + m.end(), code_kind(sentence))
        for m in SAID_NUMBERS.finditer(sentence)
        if not _NOT_SAID_CODE.search(text_before(sentence, m.start()))
        and not _SAID_NOT_A_CODE.match(sentence, m.end())
    ]


def _digit_runs(start: int, sentence: str) -> list[Span]:
    """Digits said one at a time, three or more, in a sentence about a code or a lock."""
    spans = []
    for match in DIGIT_RUN.finditer(sentence):
        words = re.findall(r"\w+", match.group(0))
        if len([w for w in words if w != "e"]) >= 3:
            spans.append(Span(start + match.start(), start + match.end(), code_kind(sentence)))
    return spans


def code_kind(sentence: str) -> str:
    if re.search(r"\bpin\b|\bsim\b|\batm\b|senha|\bsnh\b", sentence):
        return "pin"
    if re.search(r"\bcvv|\bcvc|\bback\b|\batras\b|\bverso\b", sentence):
        return "card"
    return "code"


#: a text about a machine's service, where "porta" is its port ("host: localhost\nporta: 5432")
_SERVICE = re.compile(
    r"\b(?:host|hostname|localhost|server|servidor|ip|tcp|udp|https?|ssh|docker|container"
    r"|postgres\w*|mysql|redis|nginx|database|db|banco de dados|url|endpoint|proxy|firewall)\b"
)


def names_service(folded: str) -> bool:
    """Whether the folded text is about a machine's service: its "porta" is a port."""
    return _SERVICE.search(folded) is not None


def _only_ports(sentence: str, lock: re.Match[str]) -> bool:
    """Whether every lock word of ``sentence`` (the first is ``lock``) is "porta", in a text
    about a machine's service, where it is a port."""
    return lock.group(0) == "porta" and all(
        m.group(0) == "porta" for m in _LOCK_WORD.finditer(sentence, lock.end())
    )


#: a lock's own number, not its code: "my locker number is 214", "o número do cacifo é 37"
_LOCKS_NUMBER = re.compile(
    r"\b(?:number|numero|no\.|n\.o|nr\.?)(?:[ ]+(?:of|do|da|de)[ ]+(?:the |my |o |a |meu |minha )?"
    rf"{_LOCK})?[ ]*(?:is|was|e|eh|era|:|=)?[ ]*(?:the |o |a )?[#*]?$"
)
#: the words of a code, which make a lock's number its code: "the gate code number is 4471"
_CODE_WORD = re.compile(
    r"\b(?:code|codes|codigo|cod\.|pin|passcode|combination|combo|combinacao|senha|snh)\b"
)


def _locks_own_number(before: str) -> bool:
    """Whether the words ``before`` a lock's number say it is the lock's own number, as a
    locker or a room has one, and name no code."""
    return _LOCKS_NUMBER.search(before) is not None and _CODE_WORD.search(before) is None


def _lock_numbers(start: int, sentence: str, *, service: bool = False) -> list[Span]:
    lock = _LOCK_WORD.search(sentence)
    if lock is None or (service and _only_ports(sentence, lock)):
        return []
    spans = [
        Span(start + m.start("value"), start + m.end("value"), "code")
        for m in _LOCK_VALUE.finditer(sentence)
        if not NOT_SIBLING.search(words_before(sentence, m.start("value")))
        and not _locks_own_number(text_before(sentence, m.start("value")))
    ]
    first = _LOCK_FIRST.match(sentence)
    if first is not None:
        spans.append(Span(start + first.start("value"), start + first.end("value"), "code"))
    last = _LOCK_LAST.search(sentence)
    if (
        last is not None
        and not _NOT_LOCK_LAST.search(text_before(sentence, last.start()))
        and not YEAR.fullmatch(last.group("value"))
    ):
        spans.append(Span(start + last.start("value"), start + last.end("value"), "code"))
    return spans


#: a lock that is nothing else: a door, a gate or a garage has numbers that are not codes
_STRONG_LOCK = re.compile(
    r"\b(?:lock|locks|padlock|lockbox|key ?box|key safe|safe|vault|keypad|alarm|cofre|cadeado"
    r"|fechadura|alarme|teclado|intercom|interfone)\b"
)


#: a PIN's number said anywhere in its sentence: "my debit card pin is dad's birthday, 0612",
#: "the number you punch in at the cash machine ... is still the old one, 5820"
_PIN_TOPIC = re.compile(
    r"\b(?:pin|pins|passcode|combination|combo|combinacao|cash machine|cashpoint|atm"
    r"|multibanco|caixa (?:eletronico|automatico|multibanco)|unlock|desbloqueio|puk|sim card"
    r"|cartao sim|card machine|at the machine|na maquina|no terminal|screen time|parental"
    r"|restricted mode|modo restrito|controlo parental|controle parental"
    r"|(?:phone|laptop|tablet|ipad|computer) (?:password|passcode|code)"
    r"|senha d[oa] (?:celular|telemovel|telefone|cartao|banco|app|aplicativo|computador"
    r"|portatil|notebook|ipad|tablet|alarme|cofre|cadeado|portao))\b"
)


_NOT_PIN_NUMBER = re.compile(rf"\b(?:{_ELSEWHERE_UNLESS_GIVEN})\W*$")
#: a year of birth chosen as the PIN: "the unlock code is my birth year, 1987", "o pin é o
#: ano em que nasci, 1961"; "year" before it says what the PIN is made of, not what else it is
_BIRTH_YEAR = re.compile(
    r"\b(?:birth ?year|year (?:i was|she was|he was|we were) born|ano de nascimento"
    r"|ano (?:em )?que (?:eu )?(?:nasci|nasceu|nascemos))\W*$"
)


def _elsewhere(before: str) -> bool:
    """Whether the words ``before`` a number of a PIN's sentence say it is another number."""
    return _NOT_PIN_NUMBER.search(before) is not None and _BIRTH_YEAR.search(before) is None


#: a PIN code that is a place's: India's postal codes are "PIN codes"
POSTAL = re.compile(r"\b(?:postal|postcode|zip|pincode|india|indian)\b")


def _pin_numbers(start: int, sentence: str) -> list[Span]:
    """The numbers of a sentence about a PIN (three digits or more), or about a lock (four or
    more, not a year: "I set the hotel safe to our anniversary, 0614"), unless the words
    before one say what else it is ("number", "room", "at", "since", "cost")."""
    pin = _PIN_TOPIC.search(sentence) is not None and not POSTAL.search(sentence)
    if not (pin or _STRONG_LOCK.search(sentence)):
        return []
    kind = code_kind(sentence) if pin else "code"
    return [
        Span(start + m.start(), start + m.end(), kind)
        for m in CODE_NUMBER.finditer(sentence)
        if not _elsewhere(words_before(sentence, m.start()))
        and (pin or _lock_code(text_before(sentence, m.start()), m.group(0)))
        and not (YEAR.fullmatch(m.group(0)) and _A_YEAR_AFTER.match(sentence, m.end()))
    ]


#: what follows a year that says it is one: "2019, that's the year the pin changed", "2019
#: foi o ano em que mudei o pin"
_A_YEAR_AFTER = re.compile(r"\W*(?:[\w']+\W+){0,2}(?:year|ano)\b")


def _lock_code(before: str, number: str) -> bool:
    """Whether ``number`` of a sentence about a lock is its code: four digits or more, not a
    year, not a thing's model ("our lock is a Yale 3000")."""
    if len(number) < 4 or YEAR.fullmatch(number):
        return False
    return not re.search(r"\b(?:a|an|the|um|uma|o|model|modelo)[ ]+(?:[\w-]+[ ]+)?$", before)


#: a number of a code's length, not a time, a size or a price
CODE_NUMBER = re.compile(
    rf"(?<![\w.,/:-])(?:\d{{3,8}}|\d{{1,2}}(?:[- ]\d{{1,2}}){{1,5}})"
    rf"(?![\w.,/:-]?\d|[ ]*{NOT_A_CODE})"
)


#: a code sent to someone: "the hospital portal just texted me 582 104, type that in"
_SENT_CODE = re.compile(
    r"\b(?:texted|text|sms|sent|messaged|enviou|mandou|mandaram|enviaram|chegou|deu|gerou"
    r"|generated|gave)\b[^.!?\n]{0,30}?"
    r"(?<![\w.,/:-])(?<!\bat )(?<!\bas )(?<!\bby )(?<!\bem )"
    rf"(?P<value>\d{{3}}[ -]\d{{3}}|\d{{4,8}})(?![\w.,/:]?\d|[ ]*{NOT_A_CODE})"
    r"(?=[ ]*(?:[,.;:!?)]|$|-|–|and\b|e\b|type\b|digit\w*|to\b|para\b|pra\b))"
)


_SENT_TOPIC = re.compile(
    r"\b(?:codes?|codigos?|type|enter|digit[ae]|otp|expires?|expira|portal|verify|verifica\w*"
    r"|login|log in|sign in|entrar|bank|banco|mb ?way)\b"
)


#: a code sent by text, as the text itself gives it, before its name: "4821 is your Uber
#: code", "553201 é o seu código MB WAY"
_YOUR_CODE = re.compile(
    r"(?<![\w.,/:-])(?P<value>\d{3}[ -]\d{3}|\d{4,8})[ ]+(?:is|e|eh)[ ]+"
    r"(?:your|o seu|a sua|seu|sua|o teu|a tua|teu|tua)[ ]+(?:[\w-]+[ ]+){0,3}?"
    r"(?:code|codigo|pin|passcode|token)\b"
)


def _sent_codes(start: int, sentence: str) -> list[Span]:
    if not _SENT_TOPIC.search(sentence):
        return []
    found = list(_SENT_CODE.finditer(sentence))
    if any(word in sentence for word in ("your", "seu", "sua", "teu", "tua")):
        found += _YOUR_CODE.finditer(sentence)
    return [Span(start + m.start("value"), start + m.end("value"), "code") for m in found]


#: a sentence that is only a number, after one about a code, a PIN or a card ("... is four...
#: seven... one... nine. 4719.")
ONLY_NUMBER = re.compile(r"[ ]*(?P<value>\d{3,8})[ ]*[.!]?[ ]*$")


#: digits said slowly, an ellipsis between each: "four... seven... one... nine"; or a full
#: stop, as a voice note is written down: "Four. Eight. Two. One."
SLOW_DIGITS = re.compile(
    rf"(?<![\w-]){_DIGIT_WORD}(?:[ ]*(?:\.{{2,}}|…|\.(?=[ ]))[ ]*{_DIGIT_WORD}){{2,11}}"
    r"(?![\w:/])"
)


def code_spans(start: int, sentence: str, *, service: bool = False) -> list[Span]:
    """Every code and PIN of ``sentence`` (folded, at ``start`` in its text) the rules above
    find, unordered; in a text about a machine's service (``service``, :func:`names_service`)
    a "porta" is a port, not a door."""
    spans = [
        *_lock_numbers(start, sentence, service=service),
        *_pin_numbers(start, sentence),
        *_sent_codes(start, sentence),
    ]
    if CODE_TOPIC.search(sentence) or _LOCK_WORD.search(sentence):
        spans += _digit_runs(start, sentence) + _said_numbers(start, sentence)
    return spans
