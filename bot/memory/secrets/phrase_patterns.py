"""The phrase patterns of the secret detector: where a sentence joins a credential's key word
to its value.

A key word (:mod:`bot.memory.secrets.key_words`) before its value, joined by a copula ("is",
"é", ":", "changed to", "ficou"), an aside or a comma ("pw for the router is …", "cvv 737",
"the wifi password, which nobody remembers, is …"); a value before its key ("Sunflower88 is
my instagram password"); a value a pattern takes in a group of its own (an id or account
number, a bare code, a card's expiry, a name and its password); and a line that announces a
value on the next. Beside them: the words after a key that are not its value, and those that
make the key a thing of its own ("the password manager I use is ...").
:mod:`bot.memory.secrets.key_phrases` runs them (with :mod:`bot.memory.secrets.after_keys`),
and :mod:`bot.memory.secrets.detector` the lines that announce a value. They match text folded
character for character (lower case, no accents; see
:func:`bot.memory.secrets.detector.fold_in_place`), so a match's offsets are the original
text's offsets too.
"""

from __future__ import annotations

import re

from bot.memory.secrets.key_words import ID_KEYS, STRONG_KEYS, WEAK_KEYS

__all__ = [
    "ADMIN_PAIR",
    "ANNOUNCE_LINE",
    "BARE_CODE",
    "COMMAND_USER",
    "EMAIL_PAIR",
    "EXPIRY",
    "ID_NUMBER",
    "ID_VALUE_FIRST",
    "KEY_APPOSITION",
    "KEY_ASIDE_COLON",
    "KEY_ASIDE_IS",
    "KEY_BEFORE_COMMA",
    "KEY_COMMA_IS",
    "KEY_IN_ASIDE",
    "LABEL_LINE",
    "LOGINS_PAIRS",
    "LOGIN_PAIR",
    "NOT_KEY_OF",
    "PAIR",
    "STRONG_PHRASE",
    "STRONG_RIGHT_AFTER",
    "VALUE_FIRST",
    "WEAK_PHRASE",
    "WIFI_PAIR",
]

#: what joins a key to its value: "is", "é", ":", "changed to", "ficou", "is still"...; "'s"
#: only before a word with a digit, or a symbol before its end ("the password's tigerlily88",
#: "the pw's still hunter22", not "the cat's name" nor "grandma's building:"); "its", chat's
#: "it's" with no apostrophe ("the wifi pw its Lar0ca_2024"), as loose as "'s", and only
#: straight after its key (:data:`_KEY_TO_COPULA`)
_COPULA = (
    r"(?P<copula>(?<=\w)'s(?:[ ]+still)?\b(?=[ ]+(?:\S*\d|\S*[^\sa-z\d]\S))|\bits\b"
    r"|\bis now\b|\bnow is\b|\bchanged to\b|\bends up being\b|\bwill be\b"
    r"|\bis going to be\b|\bpassou a ser\b|\bpassa a ser\b|\bvai ser\b|\bsera\b"
    r"|\b(?:is|was) still\b|\bcontinua(?: a ser| sendo)?\b|\bis\b|\bwas\b"
    r"|\bare\b|\bbecame\b|\bshows?\b|\bshowed\b|\be agora\b|\bagora e\b|\bmudou para\b"
    r"|\be\b|\beh\b|\bera\b|\bsao\b"
    r"|\bficou\b|\bvirou\b|\bmostrou\b|-+>|=>|→|[:=])"
)
_COPULA_PLAIN = _COPULA.replace("?P<copula>", "?:")
#: words after the copula that describe the key instead of giving it, or that go on with the
#: sentence: a conjunction ("asked what the wifi password was and I blanked"), a verb in
#: "-ing" before more words ("is changing next term"), a word that judges the key or says how
#: much ("is way too long", "é bem comprida"), its length ("the pin is 4-digit now", "a senha
#: é 8 caracteres")
_NOT_A_VALUE = (
    r"(?:on|in|under|inside|into|written|saved|stored|kept|printed|sent|behind|at|somewhere"
    r"|same|the|a|an|my|your|his|her|our|their|this|that|it|which|what|expired|wrong|not|no"
    r"|too|changed|reset|case|long|short|weak|strong|easy|hard|simple|complicated|invalid"
    r"|blocked|locked|incorrect|correct|required|needed|different|new|old|missing|lost|safe"
    r"|secret|also|still|now|agora|only|never|always|about|called|named|just|basically|really"
    r"|very|being|getting|sendo|ficando|super|pretty|so|for|from|of|to|with|by|below|above"
    r"|following|as follows|here|there"
    r"|empty|blank|set|gone|unknown|useless|encrypted|hidden|fine|ok|okay|good|bad"
    r"|a mesma|o mesmo|mesm[oa]|no|na|nos|nas|em|embaixo|atras|dentro|errad\w*|nova|novo"
    r"|fraca|forte|muito|igual|sobre|segredo|sem|o|os|as|um|uma|do|da|de|meu|minha|seu|sua"
    r"|essa|esse|isso|aquela|aquele|trocad\w*|alterad\w*|mudad\w*|resetad\w*|bloquead\w*"
    r"|expirad\w*|salv\w*|guardad\w*|anotad\w*|escrit\w*|grande|pequen\w*|facil|dificil"
    r"|diferente|a seguinte|o seguinte|abaixo|acima|aqui|ali|la|secret\w*|valid\w*|invalid\w*"
    r"|vencid\w*|confidencial|pessoal|particular|enviad\w*|mandad\w*|escondid\w*|perdid\w*"
    r"|vazad\w*|roubad\w*|gerad\w*|criad\w*|pedid\w*|exigid\w*|obrigatori\w*|[a-z]{3,}ed"
    r"|broken|hidden|stolen|forgotten|known|shown|given|sent|done|gone|up|down|off|back|working|ready"
    r"|segur\w*|suficiente|boa|bom|adequad\w*|aceitavel|razoavel|secure|enough|acceptable"
    r"|reasonable|nothing|nada|desculpa|sorry|\$\{?[a-z_][a-z0-9_]*\}?|\{\{[^}\n]*\}\}"
    r"|and|or|but|because|cause|if|when|while|until|unless|ou|mas|porque|pq|quando|enquanto"
    r"|[a-z]{3,}ing(?=[ ]+[a-z])"
    r"|enorme|gigante|imens[ao]|huge|massive|tiny|annoying|confusing|ridiculous|ridicul[ao]"
    r"|horrivel|horrible|terrible|awful|impossivel|impossible|insane|chat[ao]|irritante"
    r"|way(?=[ ]+(?:too|more|less|longer|shorter|harder|easier)\b)|kinda|sorta|quite|rather"
    r"|fairly|extremely|insanely|ridiculously|bem|meio|tao|demasiado|bastante|comprid\w*"
    r"|curt[ao]s?|long[ao]s?"
    r"|\d+[- ]?(?:digits?|chars?|characters?|letters?|numbers?|digitos?|caracteres|letras"
    r"|numeros|algarismos))"
)
#: words that make the key a thing of its own: "the password manager I use is ...", "the
#: password policy is ...", "the password's length is ..."
NOT_KEY_OF = (
    r"(?!(?:'s)?[ ]+(?:managers?|apps?|generators?|polic(?:y|ies)|requirements?|rules|strength"
    r"|hints?|streaks?|attempts?|tries|count|counter|history|resets?|expiry|length"
    r"|fields?|boxes|box|screens?|pages?|prompts?|protected|protection|vaults?|gestor"
    r"|gerenciador|aplicativo)\b)"
)
#: between a key and its copula: up to 40 characters, no sentence end
_GAP = r"(?:[^?!\n.:=;,]|\.(?=\S)){0,40}?"
#: between a key and "its": nothing, or "for" and a few words ("the password for the router
#: its Xy7!"); "its" after more is the possessive of a thing beside the key ("the password and
#: its 2FA code", "the wifi and its Home_5G network")
_ITS_GAP = r"(?:[ ]+for(?:[ ]+(?!(?:and|with|of|e|com|de|its)\b)[\w'-]+){1,4}?)?[ ]+"
#: from a key to its copula: "its" only after :data:`_ITS_GAP`, any other after :data:`_GAP`
_KEY_TO_COPULA = rf"(?:{_ITS_GAP}(?=its\b)|{_GAP}(?!its\b))"
#: a copula after an aside, never "its" ("the wifi password, which I set, its ...")
_ASIDE_COPULA = rf"(?!its\b){_COPULA}"

STRONG_PHRASE = re.compile(
    rf"\b(?P<key>{STRONG_KEYS})\b{NOT_KEY_OF}{_KEY_TO_COPULA}{_COPULA}[ ]*:?[ ]*"
    rf"(?!(?:{_NOT_A_VALUE})(?=[ ,.;:!?)]|$))(?=\S)"
)
WEAK_PHRASE = re.compile(
    rf"\b{WEAK_KEYS}\b{NOT_KEY_OF}{_KEY_TO_COPULA}{_COPULA}[ ]*:?[ ]*"
    rf"(?!(?:{_NOT_A_VALUE})(?=[ ,.;:!?)]|$))(?=\S)"
)
#: "password Pipoca#55", "cvv 4412", "wifi: Girassol2020": the key straight before its value
STRONG_RIGHT_AFTER = re.compile(
    rf"\b(?P<key>{STRONG_KEYS}|{WEAK_KEYS})\b{NOT_KEY_OF}[ ]*(?:[:=#]|-+>|=>|→)?[ ]*(?=\S)"
    rf"(?!(?:{_NOT_A_VALUE})(?=[ ,.;:!?)]|$))"
)
#: "Sunflower88 is my instagram password", "coloquei X como senha", "biscoito22, essa é a senha
#: do wifi", "sunflower88, that's the wifi password"
VALUE_FIRST = re.compile(
    r"(?<![\w@/.:-])(?P<value>[^\s]{4,64}?)[,.]?[ ]+(?:is|was|as|e|eh|como|de|="
    r"|(?<=,[ ])(?:that'?s|thats|that is|this is|it'?s"
    r"|(?:essa|esta|esse|este|isso|isto)[ ]+(?:e|eh|era)|e[ ]+(?:essa|esta|esse|este)))[ ]+"
    r"(?:(?:my|the|our|a|an|minha|meu|o|nossa|nosso|new|nova|novo|old|antiga)[ ]+){0,2}"
    rf"(?:[\w'-]+[ ]+){{0,2}}?(?:{STRONG_KEYS})\b"
)
#: "meu CPF é 529.982.247-25", "account 70872490", "agência 1234 conta 98765-4"
ID_NUMBER = re.compile(
    rf"\b{ID_KEYS}(?!\w)(?:[^\d\n.?!]|\.(?=\S)|\?[ ]+(?=(?:it'?s|it is|here|e|eh|sao)\b)){{0,40}}?"
    r"(?P<value>(?<![a-z'’])[a-z]{0,2}[ -]?\d(?:[\d .\-/]|[ ](?:ponto|traco|dot|dash)[ ])*\d"
    r"(?:-[0-9xa-z]\b|[ ][a-z]{2}\d\b|[ ][a-d]\b)?"
    r"|(?<![\w-])(?=[a-z0-9]*\d(?:[a-z]*\d){4})(?=[a-z0-9]*[a-z])[a-z0-9]{8,20}\b)"
)
#: "the code for the gate is 3344", "código do WhatsApp: 512-880": a plain code of digits
BARE_CODE = re.compile(
    r"(?<!zip )(?<!postal )(?<!pin )(?<!area )(?<!error )(?<!fault )(?<!dress )(?<!source )"
    r"(?<!promo )(?<!discount )(?<!country )(?<!tracking )(?<!bar )(?<!qr )(?<!product )"
    r"(?<!course )"
    r"(?:\b(?:code|codigo)\b|\bcod\.)"
    r"(?! (?:(?:de|of|do|da) )?(?:erro|barras|rastreio|area|pais|conduta"
    r"|conduct|produto|curso|desconto|postal|promocional|fonte|reviews?|revisao|freeze)\b)"
    rf"{_GAP}{_COPULA_PLAIN}?[ ]*(?<![\w-])(?<!\bat )(?<!\bas )(?<!\bfrom )(?<!\bsince )(?<!\bin )"
    rf"(?<!\bdesde )(?<!\bem )(?P<value>\d[\d -]{{1,8}}\d)\b"
    r"(?![ ]*(?:mbps|ghz|mhz|gb|mb|kg|km|reais|euros?|dollars?|%|h\b|am\b|pm\b))"
    r"(?![ ]+(?:just[ ]+)?(?:means?|meant|error|not found|status)\b)"
)
#: "login: maria / Cafe#7", "creds for the router: admin / Fj8#kL2m"
LOGIN_PAIR = re.compile(
    r"\b(?:login|logins|credentials|creds|credenciais|usuario e senha|user and password"
    r"|username and password)\b[^?!\n]{0,40}[:=][ ]*\S+[ ]*[/|,][ ]*(?P<value>\S)"
)
#: "logins for the school portal: Emma is emma.r / Sunflower9 and Leo is leo.r / RocketMan12"
LOGINS_PAIRS = re.compile(
    r"(?:^|(?<=\n))[^\n]*?\b(?P<key>login|logins|credentials|creds|credenciais|acessos?"
    r"|usuarios?|users?|usernames?|accounts?|contas?)\b[^\n]{0,120}?(?<![/\w])[\w.@+-]{2,64}"
    r"[ ]*/[ ]*(?P<value>[^\s/,;]{4,64})"
)
#: each further "name / password" pair on the line of a :data:`LOGINS_PAIRS` match
PAIR = re.compile(
    r"(?<![/\w])[\w.@+-]{2,64}[ ]*/[ ]*(?P<value>[^\s/,;]{4,64})(?![^\s/,;])"
    r"(?![ ]+(?:folders?|director(?:y|ies)|pastas?|files?|drives?|shares?|teams?|groups?)\b)"
)
#: "11234567890 é o meu número de segurança social": an id's number before its name
ID_VALUE_FIRST = re.compile(
    r"(?<![\w.-])(?P<value>\d[\d .\-/]{4,18}\d)[ ]+(?:is|e|eh|=|-)[ ]+"
    r"(?:(?:my|the|his|her|our|o|a|meu|minha|seu|sua|nosso|nossa)[ ]+){0,2}"
    r"(?:(?:number|numero|no\.?|n\.?o)[ ]+(?:(?:of|da|de|do)[ ]+)?)?"
    rf"(?:[\w'-]+[ ]+){{0,2}}?{ID_KEYS}\b"
)
#: "router admin / admin12345", "root/Tr0ub4dor": a user's name, a slash, its password
ADMIN_PAIR = re.compile(
    r"\b(?:admin|administrator|administrador|root|user|username|usuario|utilizador)"
    r"[ ]*/[ ]*(?P<value>[^\s/]{4,})(?![^\s/])(?![ ]+(?:folders?|director(?:y|ies)|pastas?|files?"
    r"|drives?|shares?|teams?|groups?|channels?|has|have|is|are|was|tem|esta)\b)"
)
#: "wifi at the cabin: Loon_Lake / northernlights88": a network's name, a slash, its key
WIFI_PAIR = re.compile(
    r"\b(?:wifi|wi-fi|wlan|network|rede|ssid)\b[^\n:=]{0,30}[:=][ ]*[^\s/]{1,64}[ ]*/[ ]*"
    r"(?P<value>[^\s/,;]{4,64})"
)
#: "pediu a senha do portal, é Condo_Lx_1200": the value after a comma and its copula
KEY_COMMA_IS = re.compile(
    rf"\b(?P<key>{STRONG_KEYS})\b{NOT_KEY_OF}[^.!?\n,]{{0,40}},[ ]*"
    r"(?:it'?s|it is|that'?s|e|eh|is|sao|era|was)[ ]+(?P<value>[^\s,;]+)"
)
#: a relative clause between commas: ", which nobody ever remembers,", ", que eu troquei ontem,",
#: ", aquela que o técnico deixou,", ", the one on the router,"
_ASIDE = r",[ ]*(?P<aside>(?:which|that|que|o qual|a qual|aquel[ae] que|the one)\b[^.!?\n,]{0,60}),"
#: "the wifi password, which nobody ever remembers, is bananas77": the key, a relative clause
#: about it, then the copula and its value
KEY_ASIDE_IS = re.compile(
    rf"\b(?P<key>{STRONG_KEYS})\b{NOT_KEY_OF}[^.!?\n,]{{0,40}}?{_ASIDE}[ ]*{_ASIDE_COPULA}"
    rf"[ ]*:?[ ]*(?!(?:{_NOT_A_VALUE})(?=[ ,.;:!?)]|$))(?=\S)"
)
#: "my first pet's name, which is the security answer, is Biscuit": a relative clause that
#: says the subject is a key, then the subject's value after the clause
KEY_IN_ASIDE = re.compile(
    r",[ ]*(?:which|that|que|o qual|a qual)[ ]+(?:is|was|e|eh|era|serves as|works as|serve de"
    r"|serve como|funciona como)[ ]+(?:(?:also|the|my|our|his|her|tambem|a|o|minha|meu|nossa"
    rf"|nosso|sua|seu)[ ]+){{0,3}}(?:[\w'-]+[ ]+){{0,3}}?(?P<key>{STRONG_KEYS})\b{NOT_KEY_OF}"
    rf"[^.!?\n,]{{0,30}},[ ]*{_ASIDE_COPULA}[ ]*:?[ ]*"
    rf"(?!(?:{_NOT_A_VALUE})(?=[ ,.;:!?)]|$))(?=\S)"
)
#: "the new building has a door code, 2291#, and ...": a value with a digit set between commas
#: (or closing its sentence) as an aside, after its key (:data:`KEY_BEFORE_COMMA`); read from
#: the comma, which is cheaper than from every key
KEY_APPOSITION = re.compile(
    r"(?<=[a-z])[ ]*,[ ]*(?P<value>(?=[^\s,;]*\d)[^\s,;]{3,64}?)"
    r"[.!?]?(?=[ ]*,|[ ]*$|[ ]*[;\n]|[ ]+(?:and|e)\b)"
)
#: the key that ends the words before such a comma
KEY_BEFORE_COMMA = re.compile(rf"\b(?P<key>{STRONG_KEYS})\b{NOT_KEY_OF}$")
#: "curl -u admin:Plexrocks-2024 http://...": a command's user and password
COMMAND_USER = re.compile(
    r"\b(?:curl|wget|http|https|rsync|ftp|lftp|smbclient|mount|restic|rclone)\b[^\n]{0,60}?"
    r"(?:[ ](?:-u|--user)[ =]+[^\s:]+:|[ ]--pass(?:word)?[ =]+)(?P<value>[^\s]+)"
)
#: "master password, in case something happens to me: Marmalade Tractor ...": a key, an
#: aside after a comma, then its value after a colon
KEY_ASIDE_COLON = re.compile(
    rf"\b(?P<key>{STRONG_KEYS})\b{NOT_KEY_OF}[^.!?\n:=]{{0,50}},[^.!?\n:=]{{0,50}}"
    rf"(?P<copula>:)[ ]*(?!(?:{_NOT_A_VALUE})(?=[ ,.;:!?)]|$))(?=\S)"
)
#: "bea@mail.com / Popcorn#2022"
EMAIL_PAIR = re.compile(
    r"[\w.+-]{1,64}@[\w-]+\.[\w.]+[ ]*(?:/+|\||,)[ ]*(?P<value>(?![^\s]*@)\S{4,})"
)
#: a card's expiry: "exp 11/27", "validade 03/29"; "vence 08/27" only next to a card word
EXPIRY = re.compile(
    r"\b(?:exp(?:iry|ires|iration)?(?: date)?|valid (?:thru|until)|validade(?: do cartao)?"
    r"|(?:vence|vencimento|expira)(?: em)?(?=[^\n]*\b(?:cartao|card|cvv|visa|master)))"
    r"[ ]*:?[ ]*(?P<value>(?:0[1-9]|1[0-2])[ ]*/[ ]*(?:20)?\d\d)\b"
)
#: a line that announces the value on the next line: "my password is below.", "senha:"
ANNOUNCE_LINE = re.compile(
    rf"\b(?:{STRONG_KEYS}|{WEAK_KEYS}|{ID_KEYS})\b[^\d\n]{{0,40}}"
    r"(?::|\b(?:below|as follows|the following|following|abaixo|a seguir|segue))\W*$"
)
#: a line that is only a label: "password", "senha do email", "bank login", "wifi da casa"
LABEL_LINE = re.compile(
    r"^\W*(?:(?:my|the|our|a|minha|meu|o|nova|new)[ ]+)?(?:[\w-]+[ ]+){0,2}?"
    rf"(?:{STRONG_KEYS}|{WEAK_KEYS})"
    r"(?:[ ]+(?:d[oa]s?|for|of|to|pro|pra|para)(?:[ ]+[\w.-]+){1,3})?\W*$"
)
