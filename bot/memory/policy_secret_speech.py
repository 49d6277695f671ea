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
- the digits on the back of a card ("the three digits on the back of my visa are 482"), and a
  card's number in groups beside a card word, whatever its check digit;
- a value by what it does ("the ipad unlocks with dinosaur2", "join HomeNet_5G with
  coffee-tiger-42", "sunflower1987 is what I use for the netflix login"), or by its recipe
  ("the dog's name plus the year we got him, so Biscuit2014");
- the numbers of a sentence about a PIN, a cash machine or a lock ("my pin is dad's birthday,
  0612"), unless the word before one says what else it is, and the other values of a
  sentence that gave one ("it's now 2468 instead of 1357": :func:`sentence_siblings`);
- a passphrase of three words or more, numbered seed words, "🏧 5519".

What is not a value is left: times ("the alarm goes off at six thirty"), counting, a quoted
book title, a sentence about a PIN that gives none.
"""

from __future__ import annotations

import re

from bot.memory.policy_secret_values import Span

__all__ = ["DIGIT_RUN", "sentence_siblings", "spoken_secrets"]

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
    r"|fechadura|armario|card|cartao|atm|sim|disarm|desarma\w*|unlock|desbloque\w*|lockbox"
    r"|keybox|intercom|buzzer|interfone|porteiro|digit[ae]|type|punch|dial|enter)\b"
)
#: a lock, safe or alarm: its numbers are a secret even without the word "code"
_LOCK = (
    r"(?:lock|locks|padlock|lockbox|keybox|key safe|safe|vault|locker|keypad|alarm|garage|gate"
    r"|door|intercom|buzzer|pad|panel|siren|cofre|cadeado|fechadura|armario|alarme|portao|porta"
    r"|garagem|teclado|painel|sirene"
    r"|interfone|porteiro)"
)
_LOCK_WORD = re.compile(rf"\b{_LOCK}\b")
#: what follows a number that is a time, a size or a price, not a code
_NOT_A_CODE = (
    r"(?:am|pm|h|hs|o'?clock|m|cm|km|kg|meters?|metres?|metros?|feet|ft|years?|anos|days?|dias"
    r"|minutes?|minutos|hours?|horas|pages|paginas|reais|euros?|dollars?|pounds?|yen|%|people"
    r"|pessoas|pins|players|jogadores|times|vezes|points|pontos|photos|fotos|emails|messages"
    r"|unread)\b"
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
    rf"(?![\w:/.,]?\d|[ ]*{_NOT_A_CODE})"
)
#: a lock's number that closes its sentence after a comma or a colon ("the key for the
#: storage unit keypad, 6060"), unless it is a year, a street's or a room's number
_LOCK_LAST = re.compile(r"[,:][ ]*(?P<value>\d{4,8})[ ]*[.!]?[ ]*$")
#: a lock's number that opens its sentence: "7719 - that's the shed padlock", "*2580* abre o
#: portão"
_LOCK_FIRST = re.compile(
    rf"[ ]*[#*]?(?P<value>\d{{3,8}}|\d{{1,2}}(?:-\d{{1,2}}){{2,4}})[#*]?"
    rf"(?![\w.,/:]?\d|[ ]*{_NOT_A_CODE})"
    r"(?=[ ]*(?:[-–—:,=]|is\b|e\b|eh\b|opens\b|abre\b|(?:that|it)'?s\b|for\b|para\b|pra\b))"
)
#: the word before a number that says what else it is: a room's, a street's, a bus's, a
#: time, a year, a price, a phone's
_ELSEWHERE = (
    r"number|numero|no|room|sala|quarto|floor|andar|at|as|in|em|since|desde|until|ate|year|ano"
    r"|street|rua|avenue|avenida|bus|line|linha|flight|voo|page|pagina|cost|costs|custou|custa"
    r"|paid|tel|phone|telefone|call|ligar|order|pedido|station|estacao|level|nivel|platform"
    r"|plataforma|seat|lugar|bay|desk|table|mesa|route|rota|exit|saida|score|points|pontos"
)
#: ... and a few more that may stand before a code too, where a sentence gives none yet
_ELSEWHERE_UNLESS_GIVEN = rf"{_ELSEWHERE}|on|by|from|de|for|por|liga|to|para"
_NOT_LOCK_LAST = re.compile(rf"\b(?:{_ELSEWHERE_UNLESS_GIVEN})\W*$")
#: the copula or colon before a value
_GIVES = (
    r"(?:\bis\b|\bare\b|\bwas\b|\bnow\b|:|=|\be\b|\beh\b|\bsao\b|\bera\b|\bficou\b"
    r"|\b(?:they|it)['’]?(?:re|s)\b)"
)
#: the digits on the back of a card
_CARD_BACK = re.compile(
    r"\b(?:back|behind|reverse|atras|tras|verso)\b[^.!?\n]{0,40}?"
    rf"{_GIVES}[ ]*(?P<value>\d{{3,4}})\b(?![.,:/]\d)"
)
#: a card's security number: "Amex, expiry 09/28, security number 4421"
_CARD_SECURITY = re.compile(r"\bsecurity (?:number|digits)\b[^.!?\n\d]{0,20}(?P<value>\d{3,4})\b")
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
_QUOTED = re.compile(
    r"[\"“”«](?P<q>[^\"“”«»\n]{2,80})[\"“”»]|(?<!\w)'(?P<s>[^'\n]{2,80})'(?!\w)"
    r"|\[(?P<b>[^\]\s]{3,64})\]"
)

#: a seed phrase's names, then twelve words or more
_SEED_NAME = (
    r"(?:seed(?: phrase| words)?|recovery (?:phrase|words|seed)|mnemonic(?: phrase)?"
    r"|backup (?:phrase|words)|wallet (?:phrase|words|seed)|secret recovery phrase"
    r"|\d{2}[- ]words?(?: backup| phrase)?|frase (?:de recuperacao|semente|de backup)"
    r"|palavras(?: de recuperacao| da carteira| de backup)?|\d{2} palavras)"
)
_SEED = re.compile(
    rf"\b{_SEED_NAME}\b[^\n:]{{0,40}}?(?::|\bis\b|\bare\b|\be\b|\bsao\b|-|\n)[ ]*\n?[ ]*"
    r"[\"'“‘«(\[]?(?P<value>[a-z]{3,8}(?:[ ,]+[a-z]{3,8}){11,23})\b"
)
#: words that a sentence has and a seed phrase of the BIP 39 lists has not
_MIN_SEED_WORDS = 12
_NOT_SEED = frozenset(
    "the and that this with from your have will what when where which are was were not you"
    " que com para pra por uma meu minha nao sim isso esse essa dos das nos nas mas".split()
)

#: "changed my bank password to X", "mudei a senha do banco para X"
_CHANGED = re.compile(
    r"\b(?:changed|change|updated|update|set|switched|switch|reset|made|make|mudei|mudou"
    r"|troquei|trocou|alterei|alterou|coloquei|botei|defini|mudamos|trocamos)\b"
    r"[^.!?\n]{0,40}?\b(?P<key>password|passwd|passcode|pw|pwd|pass ?phrase|senha"
    r"|palavra[ -]?passe|pin|combo)\b[^.!?\n]{0,30}?"
    r"\b(?:to|into|para|pra|pro|as|como)[ ]+(?P<value>\S+)"
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
    r"|using|went with|mudei|mudou|troquei|trocou|alterei|alterou|coloquei|botei|defini|pus"
    r"|escolhi|usei|uso)\b"
)
#: a password word that names a thing of its own: "a password manager called 1Password"
_PASS_THING = re.compile(
    r"[ ]+(?:managers?|apps?|generators?|polic(?:y|ies)|requirements?|rules|vaults?|hints?"
    r"|gestor|gerenciador|aplicativo|app)\b"
)
_MIXED = re.compile(r"(?<![\w@/.:#-])(?=[^\s]*[a-z])(?=[^\s]*\d)[^\s,;()\"']{4,64}(?<![.!?])")
#: words of letters and digits that are not a password: ordinals, sizes, models of things
_NOT_MIXED = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|h|hs|min|s|k|m|g|gb|mb|tb|kb|km|kg|cm|mm|ml|x|p|yo|mp|mph|kmh)"
    r"|(?:mp|4g|5g|3g|usb|wpa|ipv|covid|win|windows|office|ios|android|iphone|ps|xbox|b|a|v)"
    r"\d+(?:\.\d+)*|\d+[ºª°]|\d{1,2}h\d{2}|\d+x\d+"
)
_NUMERIC_KEY = re.compile(r"pin|code|codigo|combination|combo|combinacao")
#: a value by what it does: "the kids' ipad unlocks with dinosaur2", "sunflower1987 is what
#: I use for the netflix login", "set the laptop one to rex99", "o portátil abre com gato22"
#: what a password opens: a device, an account, a way in
_SIGNED_IN = (
    r"(?:laptop|phone|ipad|tablet|computer|computador|portatil|telemovel|celular|pc|mac|router"
    r"|wifi|wi-fi|account|conta|login|log in|sign in|portal|email|e-mail|bank|banco|netflix"
    r"|one|lock|safe|alarm|unlock|desbloque\w*|entrar|pasword|passowrd|spotify|instagram|insta"
    r"|facebook|gmail|google|apple|steam|xbox|playstation)\b"
)
_USED_AS = (
    re.compile(
        r"\b(?:unlock(?:s|ed)?|lock(?:s|ed)?|opens?|opened|log(?:s|ged)? ?in(?:to)?"
        r"|sign(?:s|ed)? in"
        r"|join|joins|connect(?:s)? to|desbloqueia|desbloqueio|abre|entro|entra|ligam?-se a"
        r"|conecta(?:m)?(?:-se)? (?:a|ao|na|no))\b(?:[ ]+[^\s,;.!?]+){0,3}?[ ]+"
        r"(?:with|using|com|usando)[ ]+(?:the[ ]+)?(?P<value>[^\s,;]+)"
    ),
    re.compile(
        r"(?<![\w@/.:-])(?P<value>[^\s,;]{4,64})[ ]+(?:is|e|eh)[ ]+(?:what|o que)[ ]+(?:i|eu)?[ ]*"
        r"(?:use|type|enter|put in|uso|digito|ponho|escrevo)\b"
        rf"(?=[^.!?\n]*\b{_SIGNED_IN})"
    ),
    re.compile(
        rf"\b(?:set|changed|reset|switched|mudei|troquei|alterei|pus|defini)\b(?=[^.!?\n]{{0,40}}?"
        rf"\b{_SIGNED_IN})[^.!?\n]{{0,40}}?"
        r"\b(?:to|para|pra|como)[ ]+(?P<value>(?=[^\s]*[a-z])(?=[^\s]*\d)[^\s,;]{5,64})"
    ),
)
#: a flight's or a train's number, not a password: "changed my flight to TP1350"
_TRAVEL_NUMBER = re.compile(r"[a-z]{2}\d{3,4}")
#: what follows "changed ... to" when no value does
_NOT_CHANGED_TO = re.compile(
    r"(?:a|an|the|my|his|her|our|their|your|something|anything|one|another|uma|um|outra"
    r"|outro|algo|alguma|algum|a mesma|o mesmo|the same|minha|meu|sua|seu|nossa|nosso|o|os|as"
    r"|que|what|whatever|qualquer|it|isso|this|that|esta|essa|default|padrao|nova|novo|new)"
    r"(?=[ ,.;:!?)]|$)"
)


def _digit_runs(start: int, sentence: str) -> list[Span]:
    if not (_CODE_TOPIC.search(sentence) or _LOCK_WORD.search(sentence)):
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
    spans = [
        Span(start + m.start("value"), start + m.end("value"), "code")
        for m in _LOCK_VALUE.finditer(sentence)
        if not re.search(
            r"\b(?:number|numero|no|room|sala|quarto|floor|andar)\W*$", sentence[: m.start("value")]
        )
    ]
    first = _LOCK_FIRST.match(sentence)
    if first is not None:
        spans.append(Span(start + first.start("value"), start + first.end("value"), "code"))
    last = _LOCK_LAST.search(sentence)
    if (
        last is not None
        and not _NOT_LOCK_LAST.search(sentence[: last.start()])
        and not re.fullmatch(r"(?:19|20)\d\d", last.group("value"))
    ):
        spans.append(Span(start + last.start("value"), start + last.end("value"), "code"))
    return spans


#: a card's number in groups, whether or not its check digit is right (a typo in it is
#: still the card): "cartão 5502 0934 7781 2205"
_CARD_NUMBER = re.compile(r"(?<![\d-])\d{4}(?:[ -]?\d{4}){2,3}(?:[ -]?\d{1,3})?(?![\d-])")


_CARD_DETAIL = re.compile(r"\b(?:cvv2?|cvc|validade|vence|expiry|expires|exp)\b")


#: the first digits of a card's number: "the joint card number starts 5412 7534"
_CARD_BEGUN = re.compile(
    r"\b(?:starts|begins|starting|comeca|inicia)(?:[ ]+(?:with|com|por))?[ ]+"
    r"(?P<value>\d{4}(?:[ -]?\d{2,4}){0,3})\b"
)


def _card_numbers(start: int, sentence: str) -> list[Span]:
    if not (_CARD_WORD.search(sentence) or _CARD_DETAIL.search(sentence)) or "cidadao" in sentence:
        return []
    spans = [
        Span(start + m.start(), start + m.end(), "card") for m in _CARD_NUMBER.finditer(sentence)
    ]
    begun = _CARD_BEGUN.finditer(sentence) if _CARD_WORD.search(sentence) else ()
    spans += [Span(start + m.start("value"), start + m.end("value"), "card") for m in begun]
    return spans


def _card_back(start: int, sentence: str) -> list[Span]:
    if not _CARD_WORD.search(sentence):
        return []
    found = [*_CARD_BACK.finditer(sentence), *_CARD_SECURITY.finditer(sentence)]
    return [Span(start + m.start("value"), start + m.end("value"), "card") for m in found]


def _quoted_passphrase(start: int, sentence: str) -> list[Span]:
    """A quoted string beside a password word (or a first-person way in) outside it: the
    quote is the passphrase."""
    if not (_PASS_WORD.search(sentence) or _UNLOCK.search(sentence)):
        return []
    spans = []
    for match in _QUOTED.finditer(sentence):
        inside = match.group("q") or match.group("s") or match.group("b") or ""
        outside = sentence[: match.start()] + " " + sentence[match.end() :]
        named = _names_password(outside) or _UNLOCK.search(outside)
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


def _names_password(text: str) -> bool:
    """Whether ``text`` speaks of a password, not of a thing named after one ("password
    manager", "password hint")."""
    return any(not _PASS_THING.match(text, word.end()) for word in _PASS_WORD.finditer(text))


#: how a password was made, with no word for it: "the dog's name plus the year we got him,
#: so Biscuit2014", "o nome do gato e o ano"
_RECIPE = re.compile(
    r"\b(?:name|nome)\b[^.!?\n]{0,40}\b(?:plus|and|with|mais|e|com)\b[^.!?\n]{0,30}"
    r"\b(?:year|ano|number|numero|birthday|aniversario|digits|digitos|date|data)\b|[a-z] ?\+ ?\d"
)


def _set_password(start: int, sentence: str) -> list[Span]:
    named = _names_password(sentence) and _SETS_PASSWORD.search(sentence)
    if not (named or _RECIPE.search(sentence)):
        return []
    return [
        Span(start + m.start(), start + m.end(), "password")
        for m in _MIXED.finditer(sentence)
        if not _NOT_MIXED.fullmatch(m.group(0))
    ]


def _used_as(start: int, sentence: str) -> list[Span]:
    spans = []
    for pattern in _USED_AS:
        for match in pattern.finditer(sentence):
            value = match.group("value").rstrip(".!?")
            digits = sum(c.isdigit() for c in value)
            symbols = any(not c.isalnum() for c in value)
            if len(value) < 3 or not (digits or symbols) or _NOT_MIXED.fullmatch(value):
                continue
            if re.fullmatch(rf"\d+[ ]*{_NOT_A_CODE}|\d+%?|\d{{1,2}}(?::\d\d)?", value) and (
                digits < 3 or not value.isdigit()
            ):
                continue  # "opens with 20% off", "opens at 9"
            if _TRAVEL_NUMBER.fullmatch(value):
                continue
            kind = "code" if value.isdigit() else "password"
            at = start + match.start("value")
            spans.append(Span(at, at + len(value), kind))
    return spans


#: a lock that is nothing else: a door, a gate or a garage has numbers that are not codes
_STRONG_LOCK = re.compile(
    r"\b(?:lock|locks|padlock|lockbox|keybox|key safe|safe|vault|keypad|alarm|cofre|cadeado"
    r"|fechadura|alarme|teclado|intercom|interfone)\b"
)
#: a PIN's number said anywhere in its sentence: "my debit card pin is dad's birthday, 0612",
#: "the number you punch in at the cash machine ... is still the old one, 5820"
_PIN_TOPIC = re.compile(
    r"\b(?:pin|pins|passcode|combination|combo|combinacao|cash machine|cashpoint|atm"
    r"|multibanco|caixa (?:eletronico|automatico|multibanco)|unlock|desbloqueio|puk|sim card"
    r"|cartao sim|card machine|at the machine|na maquina|no terminal|screen time|parental"
    r"|restricted mode|modo restrito|controlo parental|controle parental)\b"
)
_NOT_PIN_NUMBER = re.compile(rf"\b(?:{_ELSEWHERE_UNLESS_GIVEN})\W*$")


#: "🏧 5519", "🔐: 7731", "🔑 Lisboa#22": an emoji that names what follows
_EMOJI_VALUE = re.compile(
    r"(?P<emoji>[\U0001f3e7\U0001f511\U0001f510\U0001f512\U0001f513])"
    r"\ufe0f?[ ]*[:=-]?[ ]*(?P<value>[^\s,;]{3,64})"
)


def _emoji_values(start: int, sentence: str) -> list[Span]:
    spans = []
    for m in _EMOJI_VALUE.finditer(sentence):
        value = m.group("value").rstrip(".!?")
        if not any(c.isdigit() for c in value) and value.isalpha():
            continue  # "🔑 keys are under the mat"
        kind = (
            "pin" if m.group("emoji") == "\U0001f3e7" else "code" if value.isdigit() else "password"
        )
        at = start + m.start("value")
        spans.append(Span(at, at + len(value), kind))
    return spans


#: "the passphrase for the drive is correct horse battery staple": three words or more
#: after a passphrase's name, none of them the small words of a sentence about it
_PASSPHRASE = re.compile(
    r"\b(?:pass ?phrase|frase[ -]senha|frase secreta|frase[ -]passe)\b[^.!?\n]{0,40}?"
    r"(?:\bis\b|\bwas\b|\be\b|\beh\b|:|-)[ ]*[\"'“‘«(\[]?(?P<value>[a-z]+(?:[ ]+[a-z]+){2,11})"
)
_SENTENCE_WORDS = _NOT_SEED | frozenset(
    "a an on in at of to is it my our its be by or for as written saved kept stored card paper"
    " drawer somewhere same usual um uma no na em de do da o os as e".split()
)


def _passphrase(start: int, sentence: str) -> list[Span]:
    spans = []
    for m in _PASSPHRASE.finditer(sentence):
        if not set(m.group("value").split()) & _SENTENCE_WORDS:
            spans.append(Span(start + m.start("value"), start + m.end("value"), "password"))
    return spans


def _pin_numbers(start: int, sentence: str) -> list[Span]:
    """The numbers of a sentence about a PIN (three digits or more), or about a lock (four or
    more, not a year: "I set the hotel safe to our anniversary, 0614"), unless the words
    before one say what else it is ("number", "room", "at", "since", "cost")."""
    pin = _PIN_TOPIC.search(sentence) is not None
    if not (pin or _STRONG_LOCK.search(sentence)):
        return []
    kind = _code_kind(sentence) if pin else "code"
    return [
        Span(start + m.start(), start + m.end(), kind)
        for m in _CODE_NUMBER.finditer(sentence)
        if not _NOT_PIN_NUMBER.search(sentence[: m.start()])
        and (pin or _lock_code(sentence[: m.start()], m.group(0)))
    ]


def _lock_code(before: str, number: str) -> bool:
    """Whether ``number`` of a sentence about a lock is its code: four digits or more, not a
    year, not a thing's model ("our lock is a Yale 3000")."""
    if len(number) < 4 or re.fullmatch(r"(?:19|20)\d\d", number):
        return False
    return not re.search(r"\b(?:a|an|the|um|uma|o|model|modelo)[ ]+(?:[\w-]+[ ]+)?$", before)


#: twelve words or more, numbered: "1 ladder 2 mercy 3 ozone ...", "1. abandon 2. ability"
_NUMBERED_WORDS = re.compile(
    r"(?<!\w)1[.)]?[ ]+[a-z]{3,8}(?:[ ,]+\d{1,2}[.)]?[ ]+[a-z]{3,8}){11,23}\b"
)


#: half of a seed phrase, named: "first half of the backup words: harbor clutch fiscal ..."
_SEED_PART = re.compile(
    rf"\b{_SEED_NAME}\b[^\n:]{{0,40}}?(?::|\bis\b|\bare\b|\be\b|\bsao\b|-)[ ]*"
    r"[\"'“‘«(\[]?(?P<value>[a-z]{3,8}(?:[ ,]+[a-z]{3,8}){5,10})\b"
)


def _seeds(folded: str) -> list[Span]:
    spans = [Span(*m.span(), "seed") for m in _NUMBERED_WORDS.finditer(folded)]
    for m in _SEED_PART.finditer(folded):
        if not set(m.group("value").replace(",", " ").split()) & _SENTENCE_WORDS:
            spans.append(Span(*m.span("value"), "seed"))
    for match in _SEED.finditer(folded):
        words = re.findall(r"[a-z]+", match.group("value"))
        if sum(word in _NOT_SEED for word in words) <= 1:
            spans.append(Span(*match.span("value"), "seed"))
    return spans


#: a number of a code's length, not a time, a size or a price
_CODE_NUMBER = re.compile(
    rf"(?<![\w.,/:-])(?:\d{{3,8}}|\d{{1,2}}(?:[- ]\d{{1,2}}){{1,5}})"
    rf"(?![\w.,/:-]?\d|[ ]*{_NOT_A_CODE})"
)


#: beside a code already given, "from" and "de" lead to one too: "changed my pin from 2580
#: to 9174"
_NOT_SIBLING = re.compile(rf"\b(?:{_ELSEWHERE})\W*$")


#: a sentence that completes the value the one before gave
_WHOLE = re.compile(
    r"\b(?:whole|rest|full|complete|all together|tudo|resto|inteir[oa]|complet[oa])\b"
)


def sentence_siblings(folded: str, found: list[Span]) -> list[Span]:
    """The other values of a sentence that gave a code, PIN or password: "the door code is
    2468 now instead of 1357", "changed it from hunter2 to Hunter3!" (the old value is a
    secret too: people reuse them)."""
    spans: list[Span] = []
    before: set[str] = set()
    for sentence_match in _SENTENCE.finditer(folded):
        start, end = sentence_match.span()
        kinds = {span.kind for span in found if start <= span.start < end}
        sentence = sentence_match.group(0)
        if _WHOLE.search(sentence):
            kinds |= before  # "... the end of the combo is 22. so the whole thing is 17-04-22"
        before = kinds
        if kinds & {"code", "pin"}:
            kind = "pin" if "pin" in kinds else "code"
            spans += [
                Span(start + m.start(), start + m.end(), kind)
                for m in _CODE_NUMBER.finditer(sentence)
                if not _NOT_SIBLING.search(sentence[: m.start()])
            ]
        if "password" in kinds:
            spans += [
                Span(start + m.start(), start + m.end(), "password")
                for m in _MIXED.finditer(sentence)
                if not _NOT_MIXED.fullmatch(m.group(0))
            ]
    return spans


#: a wallet's words with no name for them: "the bitcoin wallet restores with tiger maple ..."
_WALLET = re.compile(
    r"\b(?:wallets?|bitcoin|btc|eth|ethereum|crypto|cripto|carteira|ledger|trezor|metamask"
    r"|exodus|restores?|recover\w*|recupera\w*)\b"
)
_WORD_RUN = re.compile(r"(?<![\w-])[a-z]{3,8}(?:[ ,]+[a-z]{3,8}){11,23}(?![\w-])")


def _wallet_words(start: int, sentence: str) -> list[Span]:
    """Twelve words or more, none of them a small word of a sentence, beside a wallet (the
    words before them that are the sentence's own left out)."""
    if not _WALLET.search(sentence):
        return []
    spans = []
    for run in _WORD_RUN.finditer(sentence):
        words = list(re.finditer(r"[a-z]+", run.group(0)))
        tail = len(words)
        while tail and not (
            words[tail - 1].group() in _SENTENCE_WORDS or _WALLET.fullmatch(words[tail - 1].group())
        ):
            tail -= 1
        if len(words) - tail >= _MIN_SEED_WORDS:
            first = words[tail].start() if tail < len(words) else 0
            spans.append(Span(start + run.start() + first, start + run.end(), "seed"))
    return spans


#: "Trellis-Otter-91 -- that one's for the pharmacy portal": a value, then what it is for
_VALUE_FOR = re.compile(
    r"(?<![\w@/.:-])(?P<value>[^\s,;]{4,64})[ ]*(?:-+|–|—|:|,)[ ]*"
    r"(?:that|this|it|isso|essa|esse|esta|este)"
    r"(?:['’]s|[ ]+is|[ ]+one['’]s|[ ]+one is|[ ]+e|[ ]+eh)?"
    r"[ ]+(?:(?:the|my|one|your|our|o|a)[ ]+)?(?:for|pro|pra|para|do|da|de)[ ]+[^.!?\n]{0,30}?"
    r"\b(?:portal|login|account|wifi|wi-fi|bank|banco|conta|senha|password|pin|laptop"
    r"|computer|computador|phone|telemovel|celular|router|netflix)\b"
)


def _value_for(start: int, sentence: str) -> list[Span]:
    spans = []
    for m in _VALUE_FOR.finditer(sentence):
        value = m.group("value")
        if any(c.isdigit() for c in value) or any(not c.isalnum() for c in value.strip("-")):
            spans.append(Span(start + m.start("value"), start + m.end("value"), "password"))
    return spans


#: a code sent to someone: "the hospital portal just texted me 582 104, type that in"
_SENT_CODE = re.compile(
    r"\b(?:texted|text|sms|sent|messaged|enviou|mandou|mandaram|enviaram|chegou)\b[^.!?\n]{0,20}?"
    rf"(?<![\w.,/:-])(?P<value>\d{{3}}[ -]\d{{3}}|\d{{4,8}})(?![\w.,/:]?\d|[ ]*{_NOT_A_CODE})"
    r"(?=[ ]*(?:[,.;:!?)]|$|-|–|and\b|e\b|type\b|digit\w*|to\b|para\b|pra\b))"
)
_SENT_TOPIC = re.compile(
    r"\b(?:codes?|codigos?|type|enter|digit[ae]|otp|expires?|expira|portal|verify|verifica\w*"
    r"|login|log in|sign in|entrar)\b"
)


def _sent_codes(start: int, sentence: str) -> list[Span]:
    if not _SENT_TOPIC.search(sentence):
        return []
    return [
        Span(start + m.start("value"), start + m.end("value"), "code")
        for m in _SENT_CODE.finditer(sentence)
    ]


#: "kevin / Gr33nL4ntern_NAS": a name, a slash and a value that can only be a password
#: (small and capital letters, digits, often a symbol)
_BARE_PAIR = re.compile(r"(?<![/\w])[a-z][\w.@+-]{1,63}[ ]*/[ ]*(?P<value>[^\s/,;]{6,64})")


def _bare_pairs(start: int, text: str, sentence: str) -> list[Span]:
    spans = []
    for m in _BARE_PAIR.finditer(sentence):
        value = text[start + m.start("value") : start + m.end("value")]
        mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
        symbol = any(not c.isalnum() for c in value)
        if mixed and (symbol or len(re.findall(r"\d+", value)) >= 2):
            spans.append(Span(start + m.start("value"), start + m.end("value"), "password"))
    return spans


#: a sentence that is only a number, after one about a code, a PIN or a card ("... is four...
#: seven... one... nine. 4719.")
_ONLY_NUMBER = re.compile(r"[ ]*(?P<value>\d{3,8})[ ]*[.!]?[ ]*$")


#: digits said slowly, an ellipsis between each: "four... seven... one... nine"
_SLOW_DIGITS = re.compile(
    rf"(?<![\w-]){_DIGIT_WORD}(?:[ ]*(?:\.{{2,}}|…)[ ]*{_DIGIT_WORD}){{2,11}}(?![\w:/])"
)


#: an IBAN's shape beside a payment, whatever its check digits: "bank transfer now - GB71
#: MIDL 4005 1532 8847 20"
_IBAN_SHAPE = re.compile(r"\b[a-z]{2}\d{2}(?:[ ]?[a-z0-9]{4}){3,7}(?:[ ]?[a-z0-9]{1,3})?\b")
_PAYMENT = re.compile(
    r"\b(?:iban|nib|transfer\w*|transferencia|wire|bank|banco|pay|paid|pagar|paga|pague|conta"
    r"|account|deposit\w*|deposita\w*)\b"
)


def _iban_shapes(start: int, sentence: str) -> list[Span]:
    if not _PAYMENT.search(sentence):
        return []
    found = _IBAN_SHAPE.finditer(sentence)
    return [Span(start + m.start(), start + m.end(), "account") for m in found]


def spoken_secrets(folded: str, text: str = "") -> list[Span]:
    """Every value of the folded text ``folded`` that the rules above find, unordered;
    ``text`` is the text as written (the rules that need its capitals read it)."""
    spans = _seeds(folded)
    if _CODE_TOPIC.search(folded) or _CARD_WORD.search(folded):
        spans += [Span(*m.span(), _code_kind(folded)) for m in _SLOW_DIGITS.finditer(folded)]
    topic = False
    for sentence_match in _SENTENCE.finditer(folded):
        start, sentence = sentence_match.start(), sentence_match.group(0)
        alone = _ONLY_NUMBER.match(sentence)
        if alone is not None and topic:
            spans.append(Span(start + alone.start("value"), start + alone.end("value"), "code"))
        named = bool(_CODE_TOPIC.search(sentence) or _CARD_WORD.search(sentence))
        # "four... seven... one... nine." are sentences of a word each: the topic goes on
        topic = named or (topic and len(sentence.split()) <= 2)
        spans += _wallet_words(start, sentence)
        spans += _value_for(start, sentence)
        spans += _digit_runs(start, sentence)
        spans += _lock_numbers(start, sentence)
        spans += _card_back(start, sentence)
        spans += _card_numbers(start, sentence)
        spans += _quoted_passphrase(start, sentence)
        spans += _changed_to(start, sentence)
        spans += _set_password(start, sentence)
        spans += _used_as(start, sentence)
        spans += _pin_numbers(start, sentence)
        spans += _emoji_values(start, sentence)
        spans += _passphrase(start, sentence)
        spans += _sent_codes(start, sentence)
        spans += _iban_shapes(start, sentence)
        if text:
            spans += _bare_pairs(start, text, sentence)
    return spans
