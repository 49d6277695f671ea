"""Secrets of a home, a bank card and a phone as people type them in chat, English and
Portuguese (Brazilian and European), withheld; messages that only look like them are kept.

Among the secrets: a key cut short and joined to its value by "its" with no apostrophe ("the
guest wifi pw its ..."), a card's security code by Amex's name for it ("cid 4421"), a code
told in halves ("first half is 61 and the second half is 44"), every code of a list of
backup codes, a safe's numbers with the turns of its dial, a gate's code with "star" and
"pound" around it, tokens of a bot and of a cloud, a password after a hesitation ("hmm its
..."), chat's slang and laughter after a value ("eh lulinha2010 kkkk"), English and
Portuguese in one sentence. And what is not one: a queue's ticket ("a minha senha no centro
de saúde é a B032"), orders, flights, rooms, seats, an extension or a phone number to
remember, a promo code or a coupon, a pin on a map, a network's name, the time an alarm
clock is set to, a car's plate, and talk about passwords and codes with no value; and what
only looks like the secrets above: a thing's own "its" beside a key ("the password and its
2FA code", "the pin its 4-digit now"), the halves of an exam, a quiz or a match ("passei no
exame de código, a primeira parte é 28 e a segunda é 30"), a year after a card's code word
("csc 2019 report"). Their texts are read by the tests of :mod:`tests.test_secret_phrasings`.
"""

from __future__ import annotations

#: a text that gives a secret, and each value in it that must not be readable once redacted
SECRETS: list[tuple[str, list[str]]] = [
    ("hey can u remember the guest wifi pw its Lar0ca_2024!! thx", ["Lar0ca_2024"]),
    ("alarm code is four seven one nine dont forget", ["four seven one nine"]),
    (
        "ok so netflix. email is ana.costa@gmail.com and the password hmm its Pipoca#88",
        ["Pipoca#88"],
    ),
    ("garage keypad → 5521 🚗", ["5521"]),
    ("my bank card pin is 0412 but dont tell anyone lol", ["0412"]),
    ("save my visa pls 4556 7375 8689 9855 exp 09/27 cvv 331", ["4556 7375 8689 9855", "331"]),
    (
        "new openai key for the home server sk-proj-8fK2mQx9LpR3vT7wZ1aB4cD6eF0gH",
        ["sk-proj-8fK2mQx9LpR3vT7wZ1aB4cD6eF0gH"],
    ),
    ("Front door lock combo. It's 2-8-1-4.", ["2-8-1-4"]),
    (
        (
            "my seed phrase is oyster gentle canyon ribbon uncle mirror famous ladder orbit "
            "plastic velvet thunder"
        ),
        [
            "oyster gentle canyon",
            "ribbon uncle mirror",
            "famous ladder orbit",
            "plastic velvet thunder",
        ],
    ),
    ("security question for the bank was my first pets name, answer is Biscuit", ["Biscuit"]),
    ("the code they just texted me is 482913 can u hold onto it for a sec", ["482913"]),
    ("the lockbox at the cabin opens with 7734", ["7734"]),
    ("router admin login: admin / Hx7!kq29", ["Hx7!kq29"]),
    ("write down the safe combination for me: 36 left, 12 right, 24 left", ["36", "12", "24"]),
    ("amex 3782 822463 10005 cid 4421", ["3782 822463 10005", "4421"]),
    ("apple id password is BlueOcean$77 capital B and O", ["BlueOcean$77"]),
    ("for the bike lock its three three eight zero", ["three three eight zero"]),
    ("the disarm code changed, first half is 61 and the second half is 44", ["61", "44"]),
    (
        "aws secret access key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
    ),
    ("the school pickup password is blue giraffe, they ask it at the gate", ["blue giraffe"]),
    (
        "2fa backup codes 8472-1193 5530-2281 7719-4402 keep them safe",
        ["8472-1193", "5530-2281", "7719-4402"],
    ),
    ("Pin for my debit card is one two eight six period", ["one two eight six"]),
    ("gym locker combo 14 32 08 💪", ["14 32 08"]),
    (
        "github token for the ci ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        ["ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"],
    ),
    ("dad's email password, he asked me to keep it: Sporting1906", ["Sporting1906"]),
    ("the gate code for grandmas building is star 4471 pound", ["4471"]),
    ("my PIN is the year mum was born, 1958", ["1958"]),
    ("ring app login is me@casa.pt and pw Mango-Lassi-41", ["Mango-Lassi-41"]),
    (
        (
            "mastercard ending... actually full number 5425233430109903, security code on the "
            "back is 612"
        ),
        ["5425233430109903", "612"],
    ),
    ("verification code: 739 204 — it expires in 10 min", ["739 204"]),
    ("a senha do wifi é pastel_de_nata2024", ["pastel_de_nata2024"]),
    ("guarda aí o código do portão: 1 9 7 3", ["1 9 7 3"]),
    ("o pin do multibanco é 7261, não digas a ninguém", ["7261"]),
    (
        "meu cartão nubank 5162 9203 4817 6650 validade 11/28 cvv 907",
        ["5162 9203 4817 6650", "907"],
    ),
    ("código do alarme? quatro oito dois seis", ["quatro oito dois seis"]),
    ("anota a senha da netflix: Brigadeiro#2022 😋", ["Brigadeiro#2022"]),
    ("a palavra-passe do email da escola é Sardinha!55", ["Sardinha!55"]),
    ("esqueci de te dizer o cvv. é 412", ["412"]),
    ("o código que chegou por sms é 558 201, usa rápido", ["558 201"]),
    ("a senha do app do banco é 839201 tá", ["839201"]),
    ("resposta da pergunta de segurança: nome do primeiro bicho = Bolinha", ["Bolinha"]),
    (
        (
            "as 12 palavras de recuperação da carteira são tiger oven lunch piano elbow vivid "
            "crane hobby orange spell magic ditto"
        ),
        ["tiger oven lunch", "piano elbow vivid", "crane hobby orange", "spell magic ditto"],
    ),
    ("a fechadura eletrónica da porta da frente abre com 2580#", ["2580"]),
    ("senha do roteador admin / Kf93!pLm", ["Kf93!pLm"]),
    ("o cadeado da mala é 0-4-7", ["0-4-7"]),
    (
        "token do bot do telegram 7012345678:AAHk3mZ9xQpL2vR8tN5wY1cB6dF4gJ0sE7u",
        ["7012345678:AAHk3mZ9xQpL2vR8tN5wY1cB6dF4gJ0sE7u"],
    ),
    ("a combinação do cofre é 24 esquerda 8 direita 31 esquerda", ["24", "8", "31"]),
    ("código de desbloqueio do telemóvel da avó: 1 5 9 7 (ela esquece sempre)", ["1 5 9 7"]),
    ("pin do cartão de crédito um nove zero quatro", ["um nove zero quatro"]),
    ("guarda isto, a senha do wi-fi. é tudoazul2025", ["tudoazul2025"]),
    ("o código da porta do prédio mudou. agora é 3318 e depois a tecla verde", ["3318"]),
    ("senha do gov.br é Capivara@1990", ["Capivara@1990"]),
    (
        "pins do cartão de cidadão: pin1 4830, pin2 9921 e o puk 55302917",
        ["4830", "9921", "55302917"],
    ),
    ("minha senha do insta eh lulinha2010 kkkk", ["lulinha2010"]),
    ("o código de verificação do whatsapp é 284-671", ["284-671"]),
    ("the senha do wifi da casa da praia is CasaNova#12 ok?", ["CasaNova#12"]),
    ("a resposta de segurança do banco é Coimbra, cidade onde nasci", ["Coimbra"]),
    ("o cofre do hotel, quarto 512, pus o código 1408", ["1408"]),
    ("o alarme desarma com sete zero zero dois e depois enter", ["sete zero zero dois"]),
    ("a password do portátil do trabalho é Lisboa.2024xx", ["Lisboa.2024xx"]),
]

#: texts with numbers, codes and talk about passwords that give no secret
ORDINARY: list[str] = [
    "my ticket at the post office is A247, still waiting 🙄",
    "amazon order 112-4456789-3321 arriving thursday",
    "flight TP1352 leaves 6:40 from lisbon tomorrow",
    "we're in room 418 btw if u need to tell mom",
    "the new couch was 1299 euros ugh",
    "benfica won 3-1 last night!!! ⚽",
    "my work extension is 4471, remember that for when the school calls",
    "remind me to change my bank password this weekend",
    "what makes a good password anyway",
    "i forgot the alarm code again can you ask pedro what it is",
    "dentist on 14/03 at 10:30",
    "ctt tracking RR123456789PT, should arrive friday",
    "kids bus is the 728 at 8:05",
    "we moved to 42 rua das flores apt 3B",
    "mortgage is 845.30 due on the 5th",
    "table for 4 at 8pm booked under silva",
    "invoice #20240388 is paid",
    "my locker at work is number 27",
    "recipe: 250g flour 3 eggs 180 degrees for 35 min",
    "set the thermostat to 21 at night pls",
    "fridge model number is RB38T602CSA in case it breaks again",
    "our wifi network name is CasaSilva_5G",
    "there's a pin on the map where we parked",
    "basketball final score 21-17, lucas scored 8",
    "use code SUMMER20 at checkout for 20% off the shoes",
    "train platform 7, coach 4 seat 62",
    "the door code changed yesterday, maria has the new one",
    "my password manager is bitwarden, the family plan is 40 a year",
    "set an alarm for 0630 tomorrow",
    "the pizza place number is 21 846 2200 if u want to order",
    "a minha senha no centro de saúde é a B032, ainda faltam muitos",
    "tirei a senha 47 no talho e ainda vão no 31",
    "o número da encomenda é 4029981735, chega amanhã",
    "voo TP 1023 sai às 7h15",
    "ficamos no quarto 215 do hotel",
    "o sofá custou 899 euros 😅",
    "o porto ganhou 2 a 0 🔵⚪",
    "meu ramal novo é 2231, anota aí pra quando ligarem",
    "preciso trocar a senha do banco amanhã, me lembra",
    "esqueci a senha do wifi de novo 🙄",
    "consulta no dentista dia 12 às 15h",
    "o código postal lá de casa é 1200-195",
    "o cep da vó é 01310-100",
    "a fatura da luz veio 63,40€ este mês",
    "o autocarro 728 passa às 8:05",
    "moram no 3º esquerdo, porta 12",
    "comprei 2 kg de batatas e 12 ovos",
    "peguei a senha C118 no detran, tô esperando ainda",
    "o código do produto no ikea é 802.758.87",
    "o jogo acabou 3 x 2 pro flamengo",
    "liga pra pizzaria, o número é 21 3456-7890",
    "o pin do google maps tá errado, a casa é mais pra frente",
    "a palavra-passe tem de ter pelo menos 12 caracteres, diz o site",
    "o cupom PRIMEIRACOMPRA dá frete grátis",
    "a matrícula do carro novo é AA-12-BC",
    "reunião de condomínio dia 20 às 21h na sala 3",
    "o código da porta a inês sabe, pergunta a ela",
    "a nossa senha no cartório é a 23, chama quando for perto",
    "o despertador tá pra 6:45 amanhã",
    "mudei a senha do wifi ontem e agora a tv não conecta, help",
    # a thing's own "its" beside a key, and a PIN's length
    "the password and its 2FA code",
    "the alarm code and its 2-step setup",
    "the wifi and its Home_5G network",
    "the wifi password card and its QR-code",
    "the password manager and its vault",
    "the pin its 4-digit now",
    "the pin is 4-digit now",
    # halves of an exam, a quiz, a match, a time: no code that keeps anything shut
    "Passei no exame de código, a primeira parte é 28 e a segunda é 30",
    "I passed the code exam! First half was 45, second half 30.",
    "the Morse code quiz: first half 18, second half 20",
    "the combination of both halves: first half 52, second half 48",
    "the second half of the match was 2-1",
    "first half is 45 minutes",
    # a year after a card's code word
    "credit card fraud: csc 2019 report",
]
