"""Secrets of a household as people type them in chat, English and Portuguese (Brazilian and
European), withheld; messages that only look like them are kept as they are.

Among the secrets: a value told inside an aside or a relative clause ("the wifi password, which
my brother picked, is ..."), corrected on the spot ("no wait, it's ...", "não, espera"), dictated
with no punctuation nor capitals, quoted from someone else ("she texted me: code is ..."); the
codes of a home (alarm, gate, garage, safe, key box, a padlock's or a locker's combination, a
shared streaming account, the router's admin page); the key word misspelt or cut short
("passwrod", "senah", "pwd", "pw", "pin#", "cod."); emoji around the value, all capitals, the
number spelled out inside a longer sentence. And what is not one: flights, trains, buses,
orders and tracking numbers, rooms, seats and gates, recipes, scores, years, prices, house
numbers, postal codes, times, a phone number given to be called, and talk about passwords and
codes with no value.

Their texts are read by the tests of :mod:`tests.test_secret_phrasings`. A second pair of lists
was written once the rules were settled, to check that they hold beyond the texts they were
read against; its two misses ("snha", a slip of "senha"; "way too long" read as a value) were
mended since. A key judged by a word of degree ("kinda long", "bem comprida") is no value
either.
"""

from __future__ import annotations

#: a text in English that gives a secret, and each value that must not be readable once redacted
ENGLISH_SECRETS: list[tuple[str, list[str]]] = [
    (
        "the wifi password, which my brother picked because he's obsessed with fruit, is "
        "mangotango",
        ["mangotango"],
    ),
    ("the alarm code that the installer set up yesterday is 7390", ["7390"]),
    ("garage code is 5512, no sorry, 5521", ["5512", "5521"]),
    (
        "router admin password is admin1234? no wait that's the old one, it's Tp!Link7730",
        ["Tp!Link7730"],
    ),
    (
        "ok so the code for the side gate is four four seven two and you press the hash after",
        ["four four seven two"],
    ),
    (
        "tell mum the netflix login is joana.f@gmail.com and the password is sunnyday2020 thanks",
        ["sunnyday2020"],
    ),
    ("the safe in the wardrobe opens with 19-37-04", ["19-37-04"]),
    ("bike padlock combo is 0 4 9 2", ["0 4 9 2"]),
    ("the shed padlock is set to 8826", ["8826"]),
    ("disney plus: user fam.costa@outlook.com pass Mickey!2019", ["Mickey!2019"]),
    (
        "router admin page is 192.168.1.1, user admin, password Zx81spectrum",
        ["Zx81spectrum"],
    ),
    ("she texted me: code is 6604, door sticks so push hard", ["6604"]),
    ('Tom says "the lockbox code is 2205" so you can grab the keys', ["2205"]),
    ("the passwrod for the printer's page is Hp0fficeJet", ["Hp0fficeJet"]),
    ("email pasword: Gr8Dane!", ["Gr8Dane!"]),
    ("pwd for the nas: Qnap#4410", ["Qnap#4410"]),
    ("pw for the kids ipad is dino2468", ["dino2468"]),
    ("pin# 6038 for the card reader at work", ["6038"]),
    ("alarm code 🔐 8142 🔐 don't lose it", ["8142"]),
    ("wifi pass 👉 coconut_palm 👈", ["coconut_palm"]),
    ("THE GATE CODE IS 3344 AND THE ALARM IS 9901", ["3344", "9901"]),
    ("MY PASSWORD FOR THE ELECTRIC COMPANY SITE IS SPARKY2023", ["SPARKY2023"]),
    (
        "when you get to the house the alarm will beep, just punch in six nine one four and "
        "it'll stop, then feed the cat",
        ["six nine one four"],
    ),
    (
        "the garage door keypad, the one by the bins, takes eight two five five then enter",
        ["eight two five five"],
    ),
    (
        "locker padlock: 1-2-3? no that's the suitcase one, locker is 27-14-9",
        ["27-14-9"],
    ),
    ("the code for the key safe (the grey box by the door) is 0613", ["0613"]),
    (
        "the spotify family password is the dog's name plus 99: Biscuit99",
        ["Biscuit99"],
    ),
    ("cleaner asked for the alarm code so I gave her 5150, remind me to change it", ["5150"]),
    ("the code to disarm is 2 7 1 8 if the siren goes", ["2 7 1 8"]),
    (
        "landlord wrote: 'combination for the key box is 7-7-3-1, please return keys inside'",
        ["7-7-3-1"],
    ),
    ("the guest wifi, type seahorse41? no wait, it's seahorse14", ["seahorse41", "seahorse14"]),
    (
        "hey can you write down the alarm code its three one one five and the gate is the same",
        ["three one one five"],
    ),
    (
        "my sister's message: 'amazon prime login is on the fridge, password is Kitkat_Chunky'",
        ["Kitkat_Chunky"],
    ),
]

#: a text in Portuguese that gives a secret, and each value that must not be readable
PORTUGUESE_SECRETS: list[tuple[str, list[str]]] = [
    (
        "a senha do wifi, que foi o meu irmão que escolheu, é abacaxi2020",
        ["abacaxi2020"],
    ),
    ("o código do alarme que o técnico deixou ontem é 6082", ["6082"]),
    ("o código do portão é 4417, não espera, é 4471", ["4417", "4471"]),
    (
        "senha do router: Vodafone123? não, essa era a antiga, agora é Casa#Bela55",
        ["Casa#Bela55"],
    ),
    ("anota ai a senha do wifi e pamonhaquente23 tudo minusculo", ["pamonhaquente23"]),
    ("o codigo do cofre do hotel e um nove oito quatro", ["um nove oito quatro"]),
    ("o cofre do escritório abre com 31-08-77", ["31-08-77"]),
    ("cadeado da bicicleta: 5 0 2 9", ["5 0 2 9"]),
    ("o cadeado da arrecadação tem a combinação 6 6 1 4", ["6 6 1 4"]),
    ("netflix da família: email paulo.m@gmail.com senha Pipoca*88", ["Pipoca*88"]),
    (
        "pra entrar na página do roteador é 192.168.0.1, usuário admin e senha Claro@7741",
        ["Claro@7741"],
    ),
    (
        "a minha mãe mandou mensagem: o código é 2907, não te esqueças de desligar o alarme",
        ["2907"],
    ),
    ('o síndico disse "a senha do portão da garagem agora é 1590"', ["1590"]),
    ("a senah do wifi é jabuticaba44", ["jabuticaba44"]),
    ("snha do email: Marte!2021", ["Marte!2021"]),
    ("cod. do alarme 7703", ["7703"]),
    ("pwd do portátil é Benfica1904", ["Benfica1904"]),
    ("pin# do cartão refeição 4426", ["4426"]),
    ("código do portão 👉 8527 😉", ["8527"]),
    ("senha da net 🔑 coxinha_com_catupiry 🔑", ["coxinha_com_catupiry"]),
    ("A SENHA DO WIFI DA CASA DA PRAIA É MARESIA2024", ["MARESIA2024"]),
    ("CÓDIGO DO ALARME: 3816 NÃO PARTILHES", ["3816"]),
    (
        "quando chegares a casa o alarme vai apitar, marca cinco três nove dois e carrega no "
        "visto, depois dás comida ao gato",
        ["cinco três nove dois"],
    ),
    (
        "o portão da garagem abre com o código dois mil e cinquenta e um, pelo menos foi o que "
        "o vizinho disse",
        ["dois mil e cinquenta e um"],
    ),
    (
        "o cadeado do cacifo é 12-24-36... não, isso é o da mala, o do cacifo é 9-18-27",
        ["12-24-36", "9-18-27"],
    ),
    ("o código da caixa das chaves (aquela cinzenta ao lado da porta) é 0415", ["0415"]),
    ("a empregada pediu o código do alarme e eu passei 6161, lembra-me de mudar", ["6161"]),
    ("a senha do HBO que a gente divide com a tia é Novela#321", ["Novela#321"]),
    (
        "meu irmão falou: senha do wifi é bolinha de gude tudo junto, bolinhadegude",
        ["bolinhadegude"],
    ),
    ("a senha do cofre do quarto é o aniversário da vó, 2105", ["2105"]),
    (
        "a senha do wi-fi, aquela que o técnico da Meo deixou colada no router, é Xk7pQ2mz",
        ["Xk7pQ2mz"],
    ),
    ("digita girassol8? não pera, é girassol9 a senha do wifi", ["girassol8", "girassol9"]),
    ("oi vó a senha do celular da senhora é um três cinco sete tá bom", ["um três cinco sete"]),
]

#: a text in English that only looks like a secret
ENGLISH_ORDINARY: list[str] = [
    "my flight is TP1352 tomorrow at 6:40, boarding at gate B12",
    "the train to Porto is the 531, platform 4",
    "order number 112-4419283-5510 still says processing",
    "tracking number is 1Z999AA10123456784, should arrive friday",
    "we're in room 314, and I'm in seat 22C on the way back",
    "take the 27 bus and get off at the third stop",
    "recipe: 200g flour, 3 eggs, 250ml milk, bake 35 minutes at 180",
    "Benfica won 3-1, what a game",
    "I was born in 1987 and moved here in 2004",
    "the blender was 49.99 on sale, down from 79",
    "we live at number 42, the blue door",
    "my postcode is SW1A 2AA, in case you send the card",
    "dinner at 19:30, don't be late",
    "my new number is 07700 900123, save it",
    "I changed my password yesterday",
    "the alarm code changed again, ask your dad",
    "I always forget my pasword, so annoying",
    "what's the pw for the wifi?",
    "the garage door opener needs new batteries, two AAA",
    "the safe in the hotel room was tiny, fit only a passport",
    "she texted me: see you at 8 by the gate",
    "THE MEETING IS AT 3 IN ROOM 12",
    "we need 4 chairs and 2 tables for saturday 🎉",
    "the padlock I bought has a 4 digit combination, super easy to set",
    "the router's admin page keeps timing out, I'll restart it",
    "lost 3 kg in two months, six more to go",
    "the match ended two one, what a finish",
    "the pin on my jacket fell off somewhere in the park",
    "I need to reset the netflix password because someone logged in from Brazil",
    "the alarm went off at three in the morning for no reason",
    "gate 7 closes at 10:40, run!",
    "the combination of lime and chili on the fish was amazing",
    "the code review for ticket 4471 is tomorrow at 10",
]

#: a text in Portuguese that only looks like a secret
PORTUGUESE_ORDINARY: list[str] = [
    "o meu voo é o FR8342 às 7h10, porta de embarque 14",
    "apanha o comboio das 18:05, linha 3",
    "o número da encomenda é 40029922, ainda não chegou",
    "código de rastreio: LB123456789BR, já saiu pra entrega",
    "estamos no quarto 208, mesa 7 no jantar",
    "pega o ônibus 875 até o terminal",
    "receita: 2 xícaras de farinha, 3 ovos, 1 colher de fermento, forno 180 graus por 40 minutos",
    "o Flamengo ganhou de 2 a 0",
    "casei em 2011 e o Pedro nasceu em 2013",
    "a airfryer custou 399 reais no pix",
    "moro no número 127, terceiro andar",
    "o código postal é 1100-148 Lisboa",
    "o CEP é 01310-100",
    "o jantar é às 20h30, não se atrase",
    "o meu número novo é 913 456 120, guarda aí",
    "a senha do wifi mudou, pede ao Rui",
    "mudei a senha ontem, agora não me lembro",
    "qual é a senah do wifi?",
    "o comando do portão está sem pilha",
    "o cofre do hotel era minúsculo, só cabia o passaporte",
    "ela mandou mensagem: chego às 9 no portão",
    "A REUNIÃO É ÀS 15H NA SALA 4",
    "comprei 6 pães e 2 litros de leite 🍞🥛",
    "o cadeado novo tem combinação de 3 dígitos, fácil de mudar",
    "a página do router não abre, vou reiniciar",
    "perdi dois quilos em três semanas",
    "o alarme disparou às três da manhã sem motivo",
    "o código do desconto é só pra primeira compra",
    "o código de barras tá rasgado, não passa no caixa",
    "o cod. postal ta errado na fatura",
    "na farmácia chamaram a senha A47 e eu era a A52",
    "a combinação de cores da sala ficou ótima",
    "o código da disciplina é MAT1024, inscreve-te até sexta",
]

SECRETS: list[tuple[str, list[str]]] = ENGLISH_SECRETS + PORTUGUESE_SECRETS
ORDINARY: list[str] = ENGLISH_ORDINARY + PORTUGUESE_ORDINARY

#: secrets written once the rules were settled, to check that they hold beyond the texts above
UNSEEN_SECRETS: list[tuple[str, list[str]]] = [
    ("the alarm panel code, the one the security company gave us, is 7 3 0 5", ["7 3 0 5"]),
    ("grandma's netflix: login is her email, pwd Roses&Tea1948", ["Roses&Tea1948"]),
    ("mike just texted me: 'the garage keypad is 4 1 9 9, don't tell the kids'", ["4 1 9 9"]),
    (
        "write this down for the dog sitter the key box is round the back and the combination "
        "is two eight zero six",
        ["two eight zero six"],
    ),
    ("PADLOCK ON THE SHED: 5-7-1 🔒", ["5-7-1"]),
    ("a palavra-passe do router, que ninguém sabe, é Lontra_Azul7", ["Lontra_Azul7"]),
    ("o meu pai disse no grupo: o código do portão agora é 6 2 4 8", ["6 2 4 8"]),
    ("cofre do quarto: sete, três, nove, um 🙈", ["sete, três, nove, um"]),
    ("o código do alarme, que a empresa mudou ontem, passou a ser 9 1 1 4", ["9 1 1 4"]),
    (
        "pra entrar no prime video da família usa o email da mãe e a snha tartaruga99, não, "
        "pera, é tartaruga98",
        ["tartaruga99", "tartaruga98"],
    ),
]

#: ordinary texts written with :data:`UNSEEN_SECRETS`
UNSEEN_ORDINARY: list[str] = [
    "the train from Coimbra arrives on platform 2 at 14:52, carriage 6 seat 41",
    "the zip code for the new flat is 90210",
    "she texted me: the kids scored 24 points each, 48-45 final",
    "recipe says two cups of sugar, four eggs and a pinch of salt 🧁",
    "o autocarro 758 passa de 20 em 20 minutos, apanha-o na paragem do Saldanha",
    "a encomenda 9381-2274 foi entregue no lote 12, porta B",
    "o código do alarme é o mesmo de sempre, não mudámos nada",
    "o meu telemóvel novo é o 926 114 087, liga-me depois das 18h",
    "vi a senha do wifi colada no frigorífico mas já não me lembro",
    "our wifi password is way too long, I'll change it this weekend",
]

#: how long or hard a key is, said with a word of degree: a judgement, not its value
DEGREE: list[str] = [
    "the router password is way too long to type on the TV",
    "a senha do wifi é bem comprida, vou mudar para uma mais curta",
    "a palavra-passe do banco é meio longa mas já a sei de cor",
    "my work password is kinda long, I keep mistyping it",
]
