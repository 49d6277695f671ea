"""The words that name a credential, and the kind of secret each names.

The key words the phrase patterns are built from (:mod:`bot.memory.secrets.phrase_patterns`)
and that :mod:`bot.memory.secrets.after_keys` and :mod:`bot.memory.secrets.carry` read: those
after which a value is a secret whatever it looks like, those after which it must look like
one, the keys whose value is a number or a phrase of many words, the keys of id, account and
tax numbers, and the other "senha", a ticket of a queue. :data:`KEY_ANYWHERE` finds any of
them: a text without one skips the phrase rules. :data:`KEY_KINDS` gives the kind a key's
words name, and :data:`KINDS` every kind a withheld value is said to be. All of them match
folded text (lower case, no accents; see :func:`bot.memory.secrets.detector.fold_in_place`).
"""

from __future__ import annotations

import re

__all__ = [
    "ID_KEYS",
    "KEY_ANYWHERE",
    "KEY_KINDS",
    "KINDS",
    "NUMERIC_KEYS",
    "PHRASE_KEYS",
    "QUEUE_TICKET",
    "QUEUE_WORDS",
    "STRONG_KEYS",
    "WEAK_KEYS",
    "WEAK_KEYS_ONLY",
]

# -- words that announce a credential (on folded text) -----------------------------------------

#: a value after these is a secret whatever it looks like
_STRONG_EN = (
    r"(?:master |admin |new |old )?(?:password|passwd|pass ?word|pword|pwd|pw|passcode"
    r"|passphrase|passwrod|pasword|passowrd|passwrd|passord|paswd|pssword)|pin(?: code"
    r"| number)?|puk|cvv2?|cvc|security (?:code|digits|answer|question)"
    r"|secret (?:answer|word)|password word|code ?word|safe ?word|maiden name|api[ _-]?key"
    # what a bank asks beside a password: "memorable word", "security phrase"
    r"|memorable (?:word|phrase|information)|security (?:phrase|word)"
    r"|apikey|access[ _-]?key"
    r"|secret(?:[ _-]access)?[ _-]key|client[ _-]?secret|private key|(?:auth|access|bearer|bot"
    r"|deploy|api) token|licen[cs]e key|product key|serial key|seed (?:phrase|words)"
    r"|recovery (?:phrase|words|codes?|key)|backup codes?|mnemonic"
    r"|one[- ]time (?:code|password|pin)|otp|2fa(?: backup)? codes?|2fa|verification code"
    r"|confirmation code|login code|access code"
    r"|auth(?:entication)? code|sms code|(?:alarm|gate|door|garage|safe|locker|lock|lockbox"
    r"|key ?box|keypad|entry|building|front door|disarm|key) ?code|combination|combo"
    r"|(?:wifi|wi-fi|wpa2?|network) key|(?:wifi|wi-fi|wlan|network|router) pass"
    r"|\d+ (?:recovery )?words"
)
#: "codigo" as chat abbreviates it too: "cód. de verificação 552 901", "cód. do portão: 4471"
_CODIGO = r"(?:codigo|cod\.)"
_STRONG_PT = (
    # "senha do atendimento" is a ticket in a queue; "snh" is how chat abbreviates it, and
    # "snha", "sehna", "senah" how fingers slip
    r"(?:senha|snh|snha|sehna|senah)(?! d[eo] atendimento| da fila| na fila| de espera)"
    r"|palavra[ -]?passe|pin"
    r"|contra-?s+enha|palavra de codigo"
    rf"|{_CODIGO} (?:secreto|pin)"
    rf"|{_CODIGO} (?:de (?:acesso|seguranca|verificacao|confirmacao|desbloqueio)"
    r"|d[oa] (?:alarme|portao|porta|cofre|cadeado|predio|garagem|fechadura))|chave (?:da|de|do)"
    r" (?:api|acesso|rede|wifi|wi-fi|licenca)|chave secreta|chave privada|frase (?:de recuperacao"
    r"|semente|secreta)|palavras (?:de recuperacao|da carteira)|\d+ palavras"
    r"|resposta (?:secreta|de seguranca)|pergunta (?:de seguranca|secreta)|nome de solteira"
    # a bank's second password: "assinatura eletrônica", "frase de segurança"
    r"|assinatura eletronica|frase de (?:seguranca|acesso)|palavra (?:secreta|de seguranca)"
    r"|codigos? de (?:backup|reserva|emergencia|recuperacao)|combinacao"
)
STRONG_KEYS = rf"(?:{_STRONG_EN}|{_STRONG_PT})"
#: a ticket of a queue, the other "senha": a letter or two and up to three digits ("chamaram
#: a senha A47", "tirei a senha 112 no cartório"), beside the words of a queue
QUEUE_TICKET = re.compile(r"[a-z]{0,2}-?\d{1,3}")
QUEUE_WORDS = re.compile(
    r"\b(?:fila|chama\w*|chamou|tir(?:ei|ou|amos|ar|a)|peg(?:uei|ou|amos|ar|a)|retir\w+|guiche"
    r"|balcao|atendimento|painel|senhas|farmacia|cartorio|consulta|loja|posto|financas|hospital"
    r"|clinica|urgencia|vez|espera|frente)\b"
)
#: a value after these is a secret only when it looks like one (digits, symbols)
WEAK_KEYS = r"(?:wifi|wi-fi|wlan|key|chave|token|login|pass)"
WEAK_KEYS_ONLY = re.compile(WEAK_KEYS)
#: keys whose value is a number: "the pin is red" is about a map (a code word is a word: "the
#: pickup code word is pineapple")
NUMERIC_KEYS = re.compile(
    r"\b(?:pin|puk|combina\w*|combo|cvv2?|cvc|otp|2fa)\b|\bcod(?:e|igo)s?\b(?![ ]?words?\b)"
    r"|\bcod\."
)
#: keys whose value is a phrase of many words: "the mnemonic is ROYGBIV" is a memory aid; a
#: bank's "frase de segurança" is a few words, as a password is
PHRASE_KEYS = re.compile(
    r"mnemonic|seed|recovery (?:phrase|words)|frase(?! de (?:seguranca|acesso))|palavras|words"
)
#: id, account and tax numbers: the value is a number of at least six digits
ID_KEYS = (
    r"(?:ssn|social security(?: number| no\.?)?|social(?=[ ]*(?:is\b|was\b|#|:|number\b|no\b))"
    r"|sin number|tax id|tax file number|ein|itin"
    r"|medicare(?: number)?|nhs number|passport(?: number| no\.?)?"
    r"|driver'?s? licen[cs]e(?: number| no\.?)?|national insurance(?: number| no\.?)?|nino"
    r"|ni number|ni no\.?"
    r"|licen[cs]e number|(?:(?:checking|chequing|savings|joint|bank) )?"
    r"(?:account|acct|acc\.?|a/c|c/c)(?:[ ]*(?:number|numero|num\.?|nr\.?|no\.?|#))?"
    r"|routing(?: number| no\.?)?|checking|chequing"
    r"|sort code|iban|bsb|cpf|cnpj|rg|cnh|nif|nib|nipc|contribuinte|pis|pasep|nis"
    r"|titulo de eleitor|cartao de cidadao|seguranca social|passaporte|numero da conta"
    r"|(?:numero de )?utente(?: do sns)?|numero do sns"
    r"|carta de conducao|carteira de motorista"
    r"|conta(?: corrente| poupanca| bancaria)?|cc)"
)
#: any of the above: a text without one skips the phrase rules
KEY_ANYWHERE = re.compile(
    rf"\b(?:{STRONG_KEYS}|{WEAK_KEYS}|{ID_KEYS}|login|usuario|user|code|codigo|exp\w*|valid\w*"
    r"|venc\w*|admin|root|administrador|utilizador|logins|credentials|creds|credenciais"
    r"|acessos)\b"
)

# -- the kind a key names (on folded text), first match wins -----------------------------------

#: what a withheld value is said to be: ``[secret withheld: pin]``
KINDS = ("password", "pin", "code", "card", "account", "id", "key", "seed")
KEY_KINDS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(pattern))
    for kind, pattern in (
        (
            "seed",
            r"seed|recovery (?:phrase|words)|mnemonic|frase (?:de recuperacao|semente)"
            r"|palavras|\bwords\b",
        ),
        (
            "password",
            r"(?:wifi|wi-fi|wpa2?|network|rede) key|chave (?:da|de|do) (?:rede|wifi|wi-fi)"
            r"|code ?words?|safe ?words?|palavra de codigo",
        ),
        ("pin", r"\bpin\b|\bpuk\b"),
        (
            "card",
            r"cvv|cvc|card|cartao(?! de cidadao)|expir|exp\b|valid|venc|security code"
            r"|codigo de seguranca",
        ),
        (
            "code",
            r"\bcod(?:e|igo)s?\b|\bcod\.|(?:pass|key|door|gate|entry|alarm) ?code|combina|combo"
            r"|otp|2fa",
        ),
        ("key", r"api|token|\bkey\b|chave|secret (?:access )?key|client[ _-]?secret"),
        (
            "account",
            r"account|acct|\bacc\b|a/c|c/c|conta|iban|routing|checking|chequing|sort code|bsb"
            r"|\bnib\b"
            r"|agencia|\bcc\b|\bag\b",
        ),
        (
            "id",
            r"ssn|social\b|\bsin\b|tax|\bein\b|itin|medicare|nhs|passport|licen[cs]e"
            r"|cpf|cnpj|\brg\b|cnh|nif|nipc|contribuinte|pis|pasep|\bnis\b|eleitor|cidadao"
            r"|seguranca social|passaporte|national insurance|\bnino\b|\bni number|utente"
            r"|\bsns\b",
        ),
    )
]
