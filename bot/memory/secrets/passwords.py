"""Passwords as people say them in chat, for :mod:`bot.memory.secrets.speech`. Each rule
reads one sentence of folded text (``text``, as written, for the one that needs capitals):

- a quoted passphrase, before or after its word ('"otter pancake" is my passphrase'), and a
  passphrase of three words or more after its name;
- a password changed to a value ("changed my bank password to Manga2024", "mudei a senha para
  X", "changed my pin to ..."), or set, typed or said to be another's in a sentence that names
  one ("enter Maple77! when it asks for the password", "senha do app: a mesma do email,
  pitanga77");
- a value by what it does ("the ipad unlocks with dinosaur2", "join HomeNet_5G with
  coffee-tiger-42", "sunflower1987 is what I use for the netflix login", "use 'Lisboa2025' to
  get on the wifi", a texted code: "Use 739201 to verify your account"), by its recipe ("the
  dog's name plus the year we got him, so Biscuit2014", "the dog's name with 3 and an
  exclamation mark: Rex3!") or before what it is for
  ("Trellis-Otter-91 -- that one's for the pharmacy portal");
- a list of them after a colon ("passwords: netflix - popcorn88, disney - frozen2019");
- "name / Value9" pairs, alone or as the way in ("log in with joana / joana2021"), and an
  emoji that names a value ("🏧 5519", "🔑 Lisboa#22").

A password everyone knows is not the speaker's: "password123 is the most common password".
"""

from __future__ import annotations

import re

from bot.memory.secrets.codes import NOT_A_CODE
from bot.memory.secrets.rules import NOT_KEY_OF
from bot.memory.secrets.seeds import SENTENCE_WORDS
from bot.memory.secrets.values import Span, text_before, value_span

__all__ = ["MIXED", "NOT_MIXED", "everyones", "names_password", "password_spans"]

#: the words for a passphrase, a quoted one's neighbours
_PASS_WORD = re.compile(
    r"\b(?:pass ?phrase|password|passwd|pw|senha|snh|frase[ -]senha|frase secreta|palavra[ -]passe"
    r"|master password|wifi key|network key)\b"
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


#: after a password word, not a thing named after one ("a password manager called 1Password")
_NOT_A_THING = re.compile(NOT_KEY_OF)


MIXED = re.compile(
    r"(?<![\w@/.:#-])(?=[^\s]{0,63}[a-z])(?=[^\s]{0,63}\d)[^\s,;()\"']{4,64}(?<![.!?])"
)


#: words of letters and digits that are not a password: ordinals, sizes, models of things,
#: names of things ("2FA", "1Password")
NOT_MIXED = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|h|hs|min|s|k|m|g|gb|mb|tb|kb|km|kg|cm|mm|ml|x|p|yo|mp|mph|kmh|fa)"
    r"|(?:mp|4g|5g|3g|usb|wpa|ipv|covid|win|windows|office|ios|android|iphone|ps|xbox|b|a|v)"
    r"\d+(?:\.\d+)*|\d+[ºª°]|\d{1,2}h\d{2}|\d+x\d+"
    r"|\d+-[a-z]+|v?\d+(?:\.\d+)+[a-z]*\d*|1password"
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
    re.compile(  # "Marta's phone unlocks with her birthday 1403"
        r"\b(?:unlock(?:s|ed)?|opens?|opened|desbloqueia|abre)\b(?:[ ]+[^\s,;.!?]+){0,3}?[ ]+"
        r"(?:with|using|com|usando)(?:[ ]+[^\s,;.!?\d]+){1,3}?[ ]+"
        r"(?!(?:19|20)\d\d\b)(?P<value>\d{3,8})\b"
    ),
    re.compile(
        r"(?<![\w@/.:-])(?P<value>[^\s,;]{4,64})[ ]+(?:is|e|eh)[ ]+(?:what|o que)[ ]+(?:i|eu)?[ ]*"
        r"(?:use|type|enter|put in|uso|digito|ponho|escrevo)\b"
        rf"(?=[^.!?\n]*\b{_SIGNED_IN})"
    ),
    re.compile(  # "use 'Lisboa2025' to get on the wifi", "usa Lisboa2025 pra entrar", a code
        # sent by text: "Use 739201 to verify your account", "Use 482913 para confirmar"
        r"\b(?:use|type|enter|put in|try|usa|usem|digita|digite|coloca|coloque|poe|ponha"
        r"|mete)[ ]+[\"'“‘]?(?P<value>[^\s,;\"'“”‘’]{3,64})[\"'”’]?[ ]+(?:to|for|pra|para|pro)[ ]+"
        r"(?:get (?:on|onto|into|in)|log ?in|sign in|connect|join|unlock|open|access|entrar"
        r"|desbloquear|abrir|acessar|conectar|logar|verify|confirm|validate|authenticate"
        r"|verificar|confirmar|validar|autenticar)\b"
    ),
    re.compile(
        rf"\b(?:set|changed|reset|switched|mudei|troquei|alterei|pus|defini)\b(?=[^.!?\n]{{0,40}}?"
        rf"\b{_SIGNED_IN})[^.!?\n]{{0,40}}?"
        r"\b(?:to|para|pra|como)[ ]+(?P<value>(?=[^\s]{0,63}[a-z])(?=[^\s]{0,63}\d)[^\s,;]{5,64})"
    ),
)


#: a flight's or a train's number, not a password: "changed my flight to TP1350"
_TRAVEL_NUMBER = re.compile(r"[a-z]{2}\d{3,4}")


#: what follows "changed ... to" when no value does
_NOT_CHANGED_TO = re.compile(
    r"(?:a|an|the|my|his|her|our|their|your|something|anything|one|another|uma|um|outra"
    r"|outro|algo|alguma|algum|a mesma|o mesmo|the same|minha|meu|sua|seu|nossa|nosso|o|os|as"
    r"|que|what|whatever|qualquer|it|isso|this|that|esta|essa|default|padrao|nova|novo|new"
    r"|favorit[eao]s?|favourites?|principal|primary|automatic\w*|obrigatori[ao]|required"
    r"|optional|opcional|temporar\w*|provisori[ao]|lembrete|reminder|dica|hint)"
    r"(?=[ ,.;:!?)]|$)"
)


#: a quote that names where a password is kept, not the password
_PLACE_NAMED = re.compile(
    r"\b(?:under|called|named|entry|item|folder|label(?:l)?ed|titled|chamad[ao]|sob|pasta"
    r"|com o nome)[ ]*$"
)


#: a password named as everyone's, not one of the speaker's: "password123 is the most common
#: password in the world", "123456 é a senha mais usada do mundo"; the words before the
#: password's word, and those straight after it
_EVERYONES_BEFORE = re.compile(
    r"\b(?:(?:most|least) (?:common|used|popular|frequent|guessed|hacked)|worst|commonest"
    r"|common|popular|famous|classic|typical|world'?s|pior|comum|famosa|classica|tipica)\b"
)
_EVERYONES_AFTER = re.compile(
    r"[ ]+(?:(?:mais|menos) (?:usad|comu|popular|conhecid|famos|frequent|fraca|hackead)\w*"
    r"|do mundo|in the world|of all time|de sempre|comum|popular|famosa|classica|tipica)\b"
)
_POSSESSIVE = re.compile(r"\b(?:my|our|his|her|minha|meu|nossa|nosso)\b")


def everyones(before: str, after: str) -> bool:
    """Whether a password's word, ``before`` and ``after`` it in its sentence (folded), names
    a password everyone knows ("the most common password", "a senha mais usada do mundo"),
    not one of the speaker's ("my most used password")."""
    if _POSSESSIVE.search(before):
        return False
    return bool(_EVERYONES_BEFORE.search(before) or _EVERYONES_AFTER.match(after))


def _quoted_passphrase(start: int, sentence: str) -> list[Span]:
    """A quoted string beside a password word (or a first-person way in) outside it: the
    quote is the passphrase."""
    if not (_PASS_WORD.search(sentence) or _UNLOCK.search(sentence)):
        return []
    spans = []
    for match in _QUOTED.finditer(sentence):
        if _PLACE_NAMED.search(text_before(sentence, match.start())):
            continue  # "the password is in bitwarden under 'restic'"
        inside = match.group("q") or match.group("s") or match.group("b") or ""
        outside = sentence[: match.start()] + " " + sentence[match.end() :]
        named = names_password(outside) or _UNLOCK.search(outside)
        word = _PASS_WORD.search(outside)
        if word and everyones(outside[: word.start()], outside[word.end() :]):
            continue  # "'qwerty' is the most famous password ever"
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


def names_password(text: str) -> bool:
    """Whether ``text`` speaks of a password, not of a thing named after one ("password
    manager", "password hint")."""
    return any(_NOT_A_THING.match(text, word.end()) for word in _PASS_WORD.finditer(text))


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
    asked = _ASKS_STRENGTH.search(sentence) and (
        names_password(sentence) or _STRENGTH_KEY.search(sentence)
    )
    named = (
        names_password(sentence)
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


def _used_as(start: int, sentence: str) -> list[Span]:
    spans = []
    for pattern in _USED_AS:
        for match in pattern.finditer(sentence):
            value = match.group("value").rstrip(".!?")
            digits = sum(c.isdigit() for c in value)
            symbols = any(not c.isalnum() for c in value)
            if len(value) < 3 or not (digits or symbols) or NOT_MIXED.fullmatch(value):
                continue
            if re.fullmatch(rf"\d+[ ]*{NOT_A_CODE}|\d+%?|\d{{1,2}}(?::\d\d)?", value) and (
                digits < 3 or not value.isdigit()
            ):
                continue  # "opens with 20% off", "opens at 9"
            if _TRAVEL_NUMBER.fullmatch(value):
                continue
            kind = "code" if value.isdigit() else "password"
            spans.append(value_span(start, match, kind, value))
    return spans


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
        spans.append(value_span(start, m, kind, value))
    return spans


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
            spans.append(value_span(start, m))
    return spans


#: "kevin / Gr33nL4ntern_NAS": a name, a slash and a value that can only be a password
#: (small and capital letters, digits, often a symbol)
_BARE_PAIR = re.compile(r"(?<![/\w])[a-z][\w.@+-]{1,63}[ ]*/[ ]*(?P<value>[^\s/,;]{6,64})")


#: "log in with joana / joana2021", "entra com o joao.p / Cafe#7": a way in, then a user's name,
#: a slash and its password
_SIGN_IN_PAIR = re.compile(
    r"\b(?:log(?:s|ged|ging)? ?(?:in|on)(?:to)?|sign(?:s|ed|ing)? (?:in|on)|entr(?:a|e|ar|o)"
    r"|loga(?:r)?|logue|acess(?:a|e|ar|o)|conecta(?:r)?)\b[^.?!\n/]{0,30}?"
    r"\b(?:with|using|as|com|usando|como)[ ]+(?:(?:the|o|a)[ ]+)?[\w.@+-]{2,64}[ ]*/[ ]*"
    r"(?P<value>[^\s/,;]{4,64})(?![^\s/])"
)


def _sign_in_pairs(start: int, sentence: str) -> list[Span]:
    """The password of a "name / password" pair given as the way in: its value has a digit or
    a symbol ("log in with google / apple" names two ways in)."""
    if "/" not in sentence:
        return []
    return _one_values(start, _SIGN_IN_PAIR, sentence)


def _bare_pairs(start: int, text: str, sentence: str) -> list[Span]:
    spans = []
    for m in _BARE_PAIR.finditer(sentence):
        value = text[start + m.start("value") : start + m.end("value")]
        mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
        symbol = any(not c.isalnum() for c in value)
        if mixed and (symbol or len(re.findall(r"\d+", value)) >= 2):
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


def _one_value(value: str) -> bool:
    """Whether "the new one is ..." gives a value: a digit, or a symbol other than a hyphen,
    and not a model, a version or a size ("TP-Link", "v2.3", "12+")."""
    marked = any(c.isdigit() or (not c.isalnum() and c != "-") for c in value)
    return marked and not NOT_MIXED.fullmatch(value) and not re.fullmatch(r"[\d.+%]+", value)


def _spelled(start: int, sentence: str) -> list[Span]:
    return [
        value_span(start, m)
        for m in _SPELLED.finditer(sentence)
        if _SPELLED_PART.search(m.group("value"))  # not "the pin is capital of drama lol"
    ]


def _one_values(start: int, pattern: re.Pattern[str], sentence: str) -> list[Span]:
    """The values ``pattern`` finds in ``sentence`` that read as one password
    (:func:`_one_value`), their closing mark left out."""
    spans = []
    for m in pattern.finditer(sentence):
        value = m.group("value").rstrip(".!?")
        if _one_value(value):  # not "the new one is longer", "... TP-Link AX55", "v2.3"
            spans.append(value_span(start, m, value=value))
    return spans


def _one_is(start: int, sentence: str) -> list[Span]:
    return _one_values(start, _ONE_IS, sentence)


#: a list of passwords, PINs or logins after a colon: "passwords: netflix - popcorn88, disney -
#: frozen2019", "as senhas são: banco = 4471, email = Cafe#22"
_LIST_HEAD = re.compile(
    r"\b(?:passwords|passwds|pws|pins|passcodes|logins|credentials|creds|senhas|palavras[ -]passe"
    rf"|credenciais|acessos)\b{NOT_KEY_OF}[^.!?\n:]{{0,60}}:"
)
#: an item of such a list: what it is for, a dash, a colon or "is", and its value
_LIST_ITEM = re.compile(
    r"(?<![\w@])[\w.+&'@]+(?:[ ][\w.+&'@]+){0,2}?[ ]*(?:-+>?|–|—|:|=|→|\bis\b|\beh\b)[ ]*"
    r"(?P<value>[^\s,;]+)"
)


def _listed_value(value: str) -> bool:
    """Whether an item of a list of passwords gives one: letters with a digit or a symbol (not
    a model or a size), or a PIN's digits; not a score or a time ("10/10", "12:30")."""
    if value.isdigit():
        return 3 <= len(value) <= 12
    return any(c.isalpha() for c in value) and _one_value(value)


def _listed(start: int, sentence: str) -> list[Span]:
    """The values of a list of passwords after its colon, each after what it is for."""
    head = _LIST_HEAD.search(sentence) if ":" in sentence else None
    if head is None:
        return []
    kind = "pin" if head.group(0).startswith("pin") else "password"
    spans = []
    for m in _LIST_ITEM.finditer(sentence, head.end()):
        value = m.group("value").rstrip(".!?")
        if _listed_value(value):
            spans.append(value_span(start, m, kind, value))
    return spans


def password_spans(start: int, sentence: str, text: str = "") -> list[Span]:
    """Every password of ``sentence`` (folded, at ``start`` in ``text``) the rules above find,
    unordered; the rule that needs capitals runs only with ``text``."""
    spans = [
        *_value_for(start, sentence),
        *_quoted_passphrase(start, sentence),
        *_changed_to(start, sentence),
        *_set_password(start, sentence),
        *_used_as(start, sentence),
        *_emoji_values(start, sentence),
        *_passphrase(start, sentence),
        *_spelled(start, sentence),
        *_one_is(start, sentence),
        *_listed(start, sentence),
        *_sign_in_pairs(start, sentence),
    ]
    if text:
        spans += _bare_pairs(start, text, sentence)
    return spans
