"""Secrets as people type them in chat, in English and Portuguese, are withheld whatever
their phrasing; texts that only look like them are kept as they are.

Among the ways a secret is told: a password after an aside ("the wifi password, which nobody
remembers, is ..."), after its recipe ("the dog's name with 3 and an exclamation mark:
Rex3!"), in a list ("passwords: netflix - popcorn88, ..."), as the way in ("log in with joana /
joana2021", "use 'Lisboa2025' to get on the wifi"); a card's number broken over two lines, its
"three digits"; a bank branch beside its account; the answer to what a site asks. And what is
not one: a password everyone knows ("password123 is the most common password"), a flight's
number before a date, a password's length, talk about codes, PINs and passwords with no value.
"""

from __future__ import annotations

import pytest

from bot.memory.secrets.detector import MARKERS, redact_secrets
from tests import test_secret_phrasings_banking as banking
from tests import test_secret_phrasings_household as household
from tests import test_secret_phrasings_long as long_messages
from tests import test_secret_phrasings_more as more
from tests import test_secret_phrasings_round6 as round6

#: a text that gives a secret, and each value in it that must not be readable once redacted
SECRETS: list[tuple[str, list[str]]] = [
    ("wifi pass at grandma's is sunflower_1962 btw", ["sunflower_1962"]),
    ("router admin login is admin and the password is Tp-Link#4471", ["Tp-Link#4471"]),
    ("my gmail password is now BlueHorse!88 dont forget", ["BlueHorse!88"]),
    ("bank app pin 7290", ["7290"]),
    ("the netflix login is family.netflix@gmail.com, password movienight2023", ["movienight2023"]),
    ("dad's laptop password: Rover1958", ["Rover1958"]),
    ("card pin is 4821, don't tell anyone", ["4821"]),
    ("SIM PIN for the new phone is 0000 but PUK is 12345678", ["12345678"]),
    ("alarm panel code 2580 then press off", ["2580"]),
    ("garage keypad is 1379#", ["1379"]),
    ("the safe combination is 12-34-56", ["12-34-56"]),
    ("your verification code is 583 920", ["583 920"]),
    (
        "here are my backup codes: 8471-2930 5519-0042 7710-6631",
        ["8471-2930", "5519-0042", "7710-6631"],
    ),
    ("recovery code for github: a1b2c-3d4e5", ["a1b2c-3d4e5"]),
    ("my IBAN is GB82 WEST 1234 5698 7654 32", ["GB82 WEST 1234", "5698 7654 32"]),
    ("account number 31926819 sort code 60-16-13", ["31926819", "60-16-13"]),
    ("card 4111 1111 1111 1111 exp 09/27 cvv 123", ["4111 1111 1111 1111", "123"]),
    ("the security code on the back is three four seven", ["three four seven"]),
    (
        (
            "seed phrase: legal winner thank year wave sausage "
            "worth useful legal winner thank yellow"
        ),
        ["legal winner thank", "year wave sausage", "worth useful legal", "winner thank yellow"],
    ),
    (
        "here's the token sk-proj-8fJ2kLm9QpR4tV7wXy1Z3aB5cD6eF0gH paste it into the config",
        ["sk-proj-8fJ2kLm9QpR4tV7wXy1Z3aB5cD6eF0gH"],
    ),
    ("use this key AKIAIOSFODNN7EXAMPLE for the bucket", ["AKIAIOSFODNN7EXAMPLE"]),
    ("my first pet's name, which is the security answer, is Biscuit", ["Biscuit"]),
    ("security question mother's maiden name: Henderson", ["Henderson"]),
    ("user joao.p / pass Qwerty!23", ["Qwerty!23"]),
    ("login: mark.t  password: Summer2024!", ["Summer2024!"]),
    ("it's the same as the old one but with 2024 at the end: Gatinho2024", ["Gatinho2024"]),
    ("the code is my birthday backwards: 9141", ["9141"]),
    ("the password is the dog's name with 3 and an exclamation mark: Rex3!", ["Rex3"]),
    ("wifi pasword is bananabread77", ["bananabread77"]),
    ("THE ALARM CODE IS 6402", ["6402"]),
    ("🔑 hunter2024 🔑 that's the wifi", ["hunter2024"]),
    ("the pin is one nine eight four", ["one nine eight four"]),
    ("door code is five five two one", ["five five two one"]),
    ("password for the spotify is\ncoffeecup99", ["coffeecup99"]),
    ("mums ipad passcode 150363", ["150363"]),
    ("i set the hulu password to pizzaFriday", ["pizzaFriday"]),
    ("otp 449102 just came in", ["449102"]),
    ("disney+ pw: Mickey_Mouse_42", ["Mickey_Mouse_42"]),
    ("ok so the passphrase is correct horse battery staple", ["correct horse battery staple"]),
    (
        "the card is 5500 0000 0000 0004 and it expires 03/26, the three digits are 911",
        ["5500 0000 0000 0004", "911"],
    ),
    ("routing 021000021 account 000123456789", ["021000021", "000123456789"]),
    (
        (
            "card number is four five three two, zero one five one, "
            "one two eight three, zero three six six"
        ),
        [
            "four five three",
            "two, zero one",
            "five one, one",
            "two eight three,",
            "zero three six",
            "six",
        ],
    ),
    ("card: 4532 0151\n1283 0366", ["4532 0151", "1283 0366"]),
    ("the wifi is called CasaSilva and the password's tigerlily88", ["tigerlily88"]),
    ("passwords: netflix - popcorn88, disney - frozen2019", ["popcorn88", "frozen2019"]),
    ("the bike lock code is 4-0-7-2", ["4-0-7-2"]),
    ("use 'Lisboa2025' to get on the wifi", ["Lisboa2025"]),
    ("log in with joana / joana2021", ["joana2021"]),
    ("if it asks, the answer to 'city you were born' is Campinas", ["Campinas"]),
    ("my pin's 2468 lol", ["2468"]),
    ("the door code changed, it's now 4 4 0 9", ["4 4 0 9"]),
    ("sort code 20 00 00 acc 55779911", ["20 00 00", "55779911"]),
    ("my recovery key is 4F2K-9QX7-LM3P-8ZT1-W6RD-Y5HB", ["4F2K-9QX7-LM3P-8ZT1-W6RD-Y5HB"]),
    ("cvv\n552", ["552"]),
    ("the password is my cat's name then 99 so Mittens99", ["Mittens99"]),
    ("the alarm code, which the installer set, is 7731", ["7731"]),
    ("our street name, which is also the wifi password, is RuaAugusta", ["RuaAugusta"]),
    ("the router password's Xk!pass99", ["Xk!pass99"]),
    ("pins: mum's card - 8812, dad's card - 0457", ["8812", "0457"]),
    ("credentials: portal - Ana#2023, intranet - Ana#2024", ["Ana#2023", "Ana#2024"]),
    ("sign in as mark / Mk_2020", ["Mk_2020"]),
    ("if it asks for the school you went to, the answer is Colegio Pedro", ["Colegio Pedro"]),
    ("card 4716 2648\n4756 4696", ["4716 2648", "4756 4696"]),
    ("the password is my son's name plus an exclamation mark and 7: Leo!7", ["Leo!7"]),
    ("a senha do wifi é cafecomleite2020", ["cafecomleite2020"]),
    ("senha do roteador: Net@Virtua55", ["Net@Virtua55"]),
    ("minha senha do email agora é Flamengo#81", ["Flamengo#81"]),
    ("a senha do app do banco é 482916", ["482916"]),
    ("login da netflix: familia.silva@gmail.com senha: pipoca123", ["pipoca123"]),
    ("a senha do notebook da minha mãe é Maria1960", ["Maria1960"]),
    ("o pin do cartão é 7734", ["7734"]),
    ("o PIN do chip novo é 3690", ["3690"]),
    ("código do alarme 1470, depois aperta desativar", ["1470"]),
    ("o código do portão da garagem é 8520#", ["8520"]),
    ("o segredo do cofre é 24-11-73", ["24-11-73"]),
    ("seu código de verificação é 772 104", ["772 104"]),
    ("códigos de backup: 3312-8890 4471-0023 9910-5546", ["3312-8890", "4471-0023", "9910-5546"]),
    ("agência 0341 conta corrente 45678-9", ["0341", "45678-9"]),
    ("o meu IBAN é PT50 0002 0123 1234 5678 9015 4", ["PT50 0002 0123", "1234 5678 9015", "4"]),
    ("NIB 0035 0123 00001234567 89", ["0035 0123 00001234567 89"]),
    ("cartão 4532 0151 1283 0366 validade 08/28 cvv 552", ["4532 0151 1283 0366", "552"]),
    ("o código de segurança atrás do cartão é quatro cinco oito", ["quatro cinco oito"]),
    (
        (
            "frase de recuperação: abandon ability able about above absent "
            "absorb abstract absurd abuse access accident"
        ),
        [
            "abandon ability able",
            "about above absent",
            "absorb abstract absurd",
            "abuse access accident",
        ],
    ),
    (
        "cola esse token ghp_16C7e42F292c6912E7710c838347Ae178B4a no .env",
        ["ghp_16C7e42F292c6912E7710c838347Ae178B4a"],
    ),
    ("o nome do meu primeiro bicho, que é a resposta de segurança, é Pipoca", ["Pipoca"]),
    ("pergunta de segurança nome de solteira da mãe: Albuquerque", ["Albuquerque"]),
    ("usuário joao.p / senha Qwerty!23", ["Qwerty!23"]),
    ("login: ana.costa senha: Verao2024!", ["Verao2024!"]),
    ("é a mesma da antiga mas com 2024 no final: Gatinho2024", ["Gatinho2024"]),
    ("o código é meu aniversário ao contrário: 9141", ["9141"]),
    ("a senha é o nome do cachorro com três e um ponto de exclamação: Thor3!", ["Thor3"]),
    ("a senah do wifi e biscoito99", ["biscoito99"]),
    ("A SENHA DO ALARME É 5093", ["5093"]),
    ("🔐 mangaverde77 🔐 é a senha da rede", ["mangaverde77"]),
    ("o pin é um nove oito quatro", ["um nove oito quatro"]),
    ("a senha da porta é cinco cinco dois um", ["cinco cinco dois um"]),
    ("a palavra-passe do wifi é Benfica1904", ["Benfica1904"]),
    ("o código do multibanco é 6631", ["6631"]),
    ("a password do portátil do meu pai é Sporting_22", ["Sporting_22"]),
    ("senha do spotify\nlaranja2022", ["laranja2022"]),
    ("pus a senha da hbo como batatafrita", ["batatafrita"]),
    ("o código que chegou por sms é 339201", ["339201"]),
    (
        "minha chave pix aleatória é 3f1c9a7e-2b4d-4e8f-9a1c-7d6e5b4a3c2f",
        ["3f1c9a7e-2b4d-4e8f-9a1c-7d6e5b4a3c2f"],
    ),
    ("o cpf dele é 529.982.247-25", ["529.982.247-25"]),
    (
        "a senha do prime video é a mesma do email só que com ! no fim: Flamengo#81!",
        ["Flamengo#81!"],
    ),
    (
        (
            "o número do cartão é quatro cinco três dois zero um cinco "
            "um um dois oito três zero três seis seis"
        ),
        [
            "quatro cinco três",
            "dois zero um",
            "cinco um um",
            "dois oito três",
            "zero três seis",
            "seis",
        ],
    ),
    ("minha senha é igual ao meu usuário mais 123: pedro123", ["pedro123"]),
    ("o código do cadeado da bicicleta é 4-0-7-2", ["4-0-7-2"]),
    ("usa 'Lisboa2025' pra entrar no wifi", ["Lisboa2025"]),
    ("entra com joana / joana2021", ["joana2021"]),
    ("se perguntar a cidade onde nasci, a resposta é Campinas", ["Campinas"]),
    ("o pin do telemóvel é o 5821", ["5821"]),
    ("a senha do portão mudou, agora é 4 4 0 9", ["4 4 0 9"]),
    (
        "a chave da api é AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
        ["AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"],
    ),
    ("ag 1234 cc 56789-0 itaú", ["1234", "56789-0"]),
    ("validade 0927 e o cvv é 318", ["318"]),
    ("a senha é o nome da minha filha com o ano que ela nasceu, Beatriz2015", ["Beatriz2015"]),
    ("senhas: netflix - pipoca88, globoplay - novela2019", ["pipoca88", "novela2019"]),
    ("a senha do netflix, que é a mesma do email, é Pipoca#9", ["Pipoca#9"]),
    ("digita 'Praia#77' pra desbloquear o tablet", ["Praia#77"]),
    ("loga com ana.b / Verao#24 no sistema", ["Verao#24"]),
    ("metemos a palavra-passe como sardinha22", ["sardinha22"]),
    ("caso peça o nome do primeiro animal, a resposta é Bolinha", ["Bolinha"]),
    ("cartão da empresa, os três números são 318", ["318"]),
    ("a senha é o apelido dele seguido de 88, ou seja Tuca88", ["Tuca88"]),
    ("agencia 1234-5, cc 998877-1", ["1234-5", "998877-1"]),
    ("o nome da minha primeira escola, que é a resposta de segurança, é Objetivo", ["Objetivo"]),
]

#: texts about passwords, PINs, codes, cards and numbers that give no secret
ORDINARY: list[str] = [
    "I changed my PIN yesterday",
    "you should really use a password manager like Bitwarden",
    "the password for the game was hard to guess",
    "my password expired again, so annoying",
    "the code review went fine",
    "can you reset my wifi password? I forgot it",
    "dinner is at 7:30 tomorrow",
    "it cost 1,299.99 in the end",
    "my flight is BA2490 to Lisbon on 12/03",
    "we're in room 1204 on the 12th floor",
    "order number 4481-2290-1177 shipped today",
    "the recipe needs 250 g of flour and 3 eggs",
    "final score was 3-1 to Porto",
    "postcode is SW1A 1AA for the office",
    "call me at 555-0142 after lunch",
    "the meeting moved to 14:00",
    "I need a stronger password for my email",
    "two-factor authentication is on now",
    "my bank card expired last month",
    "I got the verification code but it already expired",
    "the safe in the hotel room was broken",
    "the alarm went off at 3am",
    "grandma still writes her passwords on a sticky note",
    "password123 is the most common password in the world",
    "The pin on the map shows the restaurant",
    "Python 3.12 is out",
    "I ran 10 km in 52 minutes",
    "she was born in 1984",
    "page 217 of the manual explains it",
    "the bus number is 42",
    "my gate is B22",
    "the invoice is INV-2024-0031",
    "I'm 5 foot 11",
    "we scored 98 points in the quiz",
    "the train leaves from platform 9",
    "use at least 12 characters in a password",
    "I keep forgetting my netflix password",
    "the secret ingredient is love",
    "my favourite number is 7",
    "temperature today is 31 degrees",
    "the wifi password is on the fridge",
    "I'll send you the password later",
    "ask Maria for the alarm code",
    "the code is in the repo under src",
    "the meeting code is on the invite",
    "chapter 12, verse 4",
    "the score was 21-14 at halftime",
    "my pin has 4 digits",
    "the answer to question 3 is 42",
    "I used the same password everywhere, which was dumb",
    "my password, which I forgot, is being reset",
    "the pin, which is printed on the letter, is important",
    "'qwerty' is the most famous password ever",
    "use Google to sign in",
    "type your email to log in",
    "if she asks about the school, the answer is yes",
    "the last 4 digits of the card are 1111",
    "my flight is TP 1350 to Porto on 14/05",
    "passwords: use a manager, never reuse them",
    "the app, which asks for a password, is slow",
    "the password's length is 12",
    "log in with google / apple id",
    "if it asks for your city, the answer is on the form",
    "the code, which I reviewed, is clean",
    "the three digits on the back are scratched off",
    "scores: Porto - 3, Benfica - 1",
    "logins: monday - 12, tuesday - 30",
    "The password, which expires monthly, is annoying",
    "The password, which I typed twice, is still wrong",
    "My pin, which the bank sent by post, is in the drawer",
    "The app, which is also my password manager, is great",
    "passwords: netflix - shared, disney - mine",
    "logins: ana - 3 times, joão - 5 times",
    "use 4G to connect when the wifi is down",
    "type 911 to call for help",
    "use Windows10 to log in",
    "use 1Password to log in",
    "my dog's name, which is Rex, is also in my password",
    "the code's on the fridge",
    "the card, which I lost, is blocked now",
    "troquei meu PIN ontem",
    "a senha do jogo era difícil",
    "usa um gerenciador de senhas tipo o Bitwarden",
    "esqueci a senha do wifi de novo",
    "a revisão de código foi tranquila",
    "o jantar é às 19h30",
    "custou R$ 1.299,90",
    "meu voo é o TP1023 para Lisboa dia 12/03",
    "estamos no quarto 1204",
    "o pedido número 4481-2290-1177 foi enviado",
    "a receita leva 2 xícaras de farinha e 3 ovos",
    "o jogo terminou 2 a 1 para o Flamengo",
    "o CEP do escritório é 01310-100",
    "o código postal é 1000-001 Lisboa",
    "me liga no 11 98765-4321",
    "a reunião passou para as 14h",
    "preciso de uma senha mais forte para o email",
    "ativei a verificação em duas etapas",
    "meu cartão venceu mês passado",
    "o código de verificação chegou mas já expirou",
    "o cofre do hotel estava quebrado",
    "o alarme tocou às 3 da manhã",
    "minha avó anota as senhas num caderninho",
    "123456 é a senha mais usada do mundo",
    "a senha do banco tem que ter 6 dígitos",
    "nasci em 1990",
    "o ônibus é o 175",
    "o portão de embarque é o B22",
    "a nota fiscal é a 000.123.456",
    "tenho 1,80 de altura",
    "corri 10 km em 52 minutos",
    "está 31 graus hoje",
    "a palavra-passe tem de ter pelo menos 8 caracteres",
    "mudei a palavra-passe do multibanco",
    "o comboio sai da linha 4",
    "a senha do atendimento no banco era 47",
    "peguei a senha 32 na fila do cartório",
    "o código do produto é 7891000100103",
    "a minha senha é fraca, tenho de mudar",
    "o segredo do bolo é a manteiga",
    "a senha tá no papel colado na geladeira",
    "vou mandar o código depois",
    "pede o código do alarme pra Maria",
    "a reunião é na sala 3B",
    "meu pin tem 4 dígitos",
    "o placar foi 21 a 14",
    "capítulo 12, versículo 4",
    "a resposta da questão 3 é 42",
    "usei a mesma senha em tudo, burrice",
    "a senha do wifi é a mesma de sempre",
    "abc123 é uma senha comum",
    "senhas: nunca repita, use um gerenciador",
    "a senha, que eu esqueci, foi resetada",
    "pus a senha no caderno",
    "o cartão, que chegou ontem, é lindo",
    "A senha, que expira todo mês, é chata",
    "senhas: a do banco - 6 dígitos, a do email - 8 letras",
    "digite 190 para ligar pra polícia",
    "se perguntar a escola, a resposta é qualquer uma",
    "pus a senha como favorita no navegador",
    "a agência 0341 fecha às 16h",
    "fui na agência 0341 abrir uma conta",
]


#: every round's secrets, and every round's texts that only look like them
EVERY_SECRET = (
    SECRETS
    + more.SECRETS
    + long_messages.SECRETS
    + banking.SECRETS
    + household.SECRETS
    + household.UNSEEN_SECRETS
    + round6.SECRETS
)
EVERY_ORDINARY = (
    ORDINARY
    + more.ORDINARY
    + long_messages.ORDINARY
    + banking.ORDINARY
    + household.ORDINARY
    + household.UNSEEN_ORDINARY
    + household.DEGREE
    + round6.ORDINARY
)


@pytest.mark.parametrize(("text", "values"), EVERY_SECRET)
def test_each_secret_value_is_withheld(text: str, values: list[str]) -> None:
    redacted = redact_secrets(text)
    assert MARKERS.search(redacted), redacted
    for value in values:
        assert value not in redacted, redacted


@pytest.mark.parametrize("text", EVERY_ORDINARY)
def test_ordinary_text_is_kept(text: str) -> None:
    assert redact_secrets(text) == text


@pytest.mark.parametrize("text", [text for text, _values in EVERY_SECRET])
def test_redacting_twice_changes_nothing(text: str) -> None:
    once = redact_secrets(text)
    assert redact_secrets(once) == once
