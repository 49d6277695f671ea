"""A nineteenth hand's sentences for the secret detector: 60 secrets and 60 ordinary look-alikes,
and the sentences a review of the rules they led to found (:data:`REVIEW_ORDINARY`,
:data:`REVIEW_LOOK_ALIKES`, :data:`REVIEW_SECRETS`).

Written before reading the rules, half English and half Portuguese (European and Brazilian),
as a household would write to its assistant: a small shop's till and supplier portals, a
teenager's games and school, a parent's bank details relayed by whoever looks after them,
backup codes and recovery keys, the car's and the house's apps, dictation with its filler
words, a value in the second sentence of its message, a correction or an old and a new value,
a value in quotes, in a code block or between emoji, a value in the middle of a long message.
The ordinary sentences are their look-alikes: takings, invoices, tracking and order numbers,
flights, models, firmware versions, scores, postcodes, extensions, talk about passwords.
"""

from __future__ import annotations

__all__ = ["ORDINARY", "REVIEW_LOOK_ALIKES", "REVIEW_ORDINARY", "REVIEW_SECRETS", "SECRETS"]

#: (kind, message, each value in it that must not be readable once redacted)
SECRETS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    # English: a small shop
    (
        "password",
        "The Makro supplier portal changed its login again: username is ferreira.bakery and "
        "the password is now Croissant!2025",
        ("Croissant!2025",),
    ),
    (
        "pin",
        "Till drawer override is 7734 if the float is short, only me and Dana know it",
        ("7734",),
    ),
    (
        "account",
        "Pay the flour invoice to our business account, sort code 20-45-77 account 53019842",
        ("53019842",),
    ),
    (
        "key",
        "The Square access token for the till is EAAAlz3pQ9kR7mT2vX8wY1bN4cH6jF0dS5gA, the "
        "website needs it pasted in",
        ("EAAAlz3pQ9kR7mT2vX8wY1bN4cH6jF0dS5gA",),
    ),
    (
        "password",
        "PayPal for the shop: shopfiona@gmail.com / Tills&Rolls88",
        ("Tills&Rolls88",),
    ),
    # English: a teenager
    (
        "password",
        "mum it's Leo, my google classroom pass is dragonfruit_77 in case I forget it again lol",
        ("dragonfruit_77",),
    ),
    (
        "password",
        "steam: leo_the_lion09 pw: Minecraft4ever",
        ("Minecraft4ever",),
    ),
    (
        "code",
        "Roblox sent a login code to your email, can you tell me what it says? nvm found "
        "it, 448 219",
        ("448 219",),
    ),
    (
        "pin",
        "the parental pin on the xbox is 1 9 9 0, don't tell Leo",
        ("1 9 9 0",),
    ),
    # English: a parent's bank details, relayed
    (
        "card",
        "Dad read me his card number over the phone: 4539 1488 0343 6467, expiry 09/27, "
        "keep it for the pharmacy order",
        ("4539 1488 0343 6467",),
    ),
    (
        "pin",
        "Mum's bank card pin, she finally told me: it's her old house number twice, 1717",
        ("1717",),
    ),
    (
        "account",
        "Mum's pension goes into Nationwide, account number 31926819, sort code 07-04-36",
        ("31926819",),
    ),
    (
        "id",
        "Dad's NHS number is 943 476 5919, the GP asked me for it twice this week",
        ("943 476 5919",),
    ),
    # English: backup codes and recovery keys
    (
        "code",
        "Github backup codes, save these: 7f3a-91c2, b84e-0d5f, 2c9d-e613",
        ("7f3a-91c2", "b84e-0d5f", "2c9d-e613"),
    ),
    (
        "key",
        "BitLocker recovery key for the work laptop: "
        "412390-558712-003245-671188-290301-447920-118833-562014",
        ("412390-558712-003245-671188-290301-447920-118833-562014",),
    ),
    (
        "key",
        "Apple recovery key is ZK4P-7QWM-R2TX-9HBN-V6LC-D3EF, they say keep it offline but "
        "whatever",
        ("ZK4P-7QWM-R2TX-9HBN-V6LC-D3EF",),
    ),
    # English: the car and the house
    (
        "pin",
        "The Tesla app wants a PIN to drive, I set it to 2806",
        ("2806",),
    ),
    (
        "password",
        "The Ring login is our family email and Doorbell_Sunny9",
        ("Doorbell_Sunny9",),
    ),
    (
        "code",
        "The smart lock guest code for the cleaner is 55091, she comes Tuesdays",
        ("55091",),
    ),
    # English: dictated
    (
        "password",
        "uh so the um the password for the printer thing is like, hp, no, HPoffice2021, "
        "yeah that's it",
        ("HPoffice2021",),
    ),
    (
        "pin",
        "okay so er my phone pin is, hang on, three three eight one, got it?",
        ("three three eight one",),
    ),
    # English: two sentences, corrections, quotes, emoji, a long message
    (
        "password",
        "I'm giving you Grandad's email login. The password bit is Violets&Tea1949.",
        ("Violets&Tea1949",),
    ),
    (
        "pin",
        "Remember the alarm at the shop? Its disarm number is 60418.",
        ("60418",),
    ),
    (
        "password",
        "the old wifi password was bluemoon22, the new one is BlueMoon_2025 after the router reset",
        ("bluemoon22", "BlueMoon_2025"),
    ),
    (
        "pin",
        "Correction: the bike lock is 4471 not 4417",
        ("4471", "4417"),
    ),
    (
        "key",
        "here's the API key for the weather station, pasted as is: `wx_9fK2mPq7LrT4vZ8s`",
        ("wx_9fK2mPq7LrT4vZ8s",),
    ),
    (
        "password",
        'Grandma\'s tablet password is "rosegarden" all lower case',
        ("rosegarden",),
    ),
    (
        "pin",
        "🔐 safe: 3 9 0 2 🔐",
        ("3 9 0 2",),
    ),
    (
        "seed",
        "the crypto wallet words for Leo's birthday gift, in order: orbit valve clay symbol "
        "hurt truck pioneer drama emerge tourist chase fossil 🙏",
        ("orbit valve clay", "symbol hurt truck", "pioneer drama emerge", "tourist chase fossil"),
    ),
    (
        "code",
        "Busy day: dentist at 3, then pick up Mia from football, the Amazon locker code is "
        "882 431 by the way, and we need milk and eggs.",
        ("882 431",),
    ),
    # Portuguese: a small shop
    (
        "password",
        "A senha do portal do fornecedor (Recheio) é Padaria#2025, o utilizador é o email da loja",
        ("Padaria#2025",),
    ),
    (
        "pin",
        "O código da gaveta da caixa registadora é 4482, só para emergências",
        ("4482",),
    ),
    (
        "account",
        "O IBAN da loja para os fornecedores é PT50 0035 0697 0000 5731 2901 2",
        ("PT50 0035 0697 0000 5731 2901 2",),
    ),
    (
        "account",
        "A conta da mercearia no Santander: NIB 0018 0003 5123 4567 8908 3",
        ("0018 0003 5123 4567 8908 3",),
    ),
    # Portuguese: teenagers
    (
        "password",
        "mãe, a senha do meu Free Fire é gatinho_ninja22, não conta pro Pedro",
        ("gatinho_ninja22",),
    ),
    (
        "code",
        "O código que o Discord mandou pro meu celular foi 093 557",
        ("093 557",),
    ),
    (
        "password",
        "login do portal do aluno: matrícula 20231145 e senha Escola@2024",
        ("Escola@2024",),
    ),
    (
        "password",
        "a senha do Moodle da escola da Inês é Ines.2010, ela está sempre a esquecer-se",
        ("Ines.2010",),
    ),
    # Portuguese: a parent's details
    (
        "card",
        "Meu pai ditou o cartão dele: 5162 9241 7730 0864, validade 11/26, CVV 318",
        ("5162 9241 7730 0864", "318"),
    ),
    (
        "pin",
        "A minha mãe disse que o PIN do multibanco dela é o ano em que casou, 1968",
        ("1968",),
    ),
    (
        "account",
        "Conta da vó no Banco do Brasil: agência 1234-5, conta corrente 67890-1",
        ("1234-5", "67890-1"),
    ),
    (
        "id",
        "O CPF da minha mãe é 384.719.260-40, o INSS pediu de novo",
        ("384.719.260-40",),
    ),
    (
        "id",
        "O número do cartão de cidadão do meu pai é 13845792 4 ZX7",
        ("13845792 4 ZX7",),
    ),
    (
        "id",
        "O número de utente do SNS da minha mãe é 234 567 891, anota aí",
        ("234 567 891",),
    ),
    # Portuguese: backup codes and recovery keys
    (
        "code",
        "Códigos de backup do Google: 4829 1057, 3361 8840, 9172 4406 — guarda isso",
        ("4829 1057", "3361 8840", "9172 4406"),
    ),
    (
        "key",
        "Chave de recuperação da conta Microsoft: R7KQ2-M9XWT-4HPLZ-8NVCD-3JBFY",
        ("R7KQ2-M9XWT-4HPLZ-8NVCD-3JBFY",),
    ),
    # Portuguese: the car and the house
    (
        "pin",
        "A app do carro pede um código de 4 dígitos para arrancar, pus 7142",
        ("7142",),
    ),
    (
        "password",
        "A conta da câmara de segurança (Tapo) é casa.silva@gmail.com com a senha Quintal!88",
        ("Quintal!88",),
    ),
    (
        "code",
        "O código da fechadura inteligente para a empregada é 1508#",
        ("1508",),
    ),
    # Portuguese: dictated
    (
        "password",
        "é... então, a senha do wifi da sala é, tipo, é, Girassol dois mil e vinte, tudo "
        "junto com G maiúsculo",
        ("Girassol dois mil e vinte",),
    ),
    (
        "pin",
        "hum, o pin do cartão novo é, deixa eu ver, oito oito um zero",
        ("oito oito um zero",),
    ),
    # Portuguese: two sentences, corrections, quotes, emoji, a long message
    (
        "password",
        "Vou-te passar a palavra-passe das Finanças do avô. Fica Avo.Manel1942, com ponto no meio.",
        ("Avo.Manel1942",),
    ),
    (
        "code",
        "A Uber mandou um código pra confirmar o telefone. É 5 4 8 2.",
        ("5 4 8 2",),
    ),
    (
        "password",
        "A senha antiga do Netflix era familia123, agora é Familia#Lisboa7",
        ("familia123", "Familia#Lisboa7"),
    ),
    (
        "pin",
        "Não, enganei-me, o código do alarme é 2094, não 2049",
        ("2094", "2049"),
    ),
    (
        "key",
        "```\nchave api do sistema de faturação: fx_live_8HqT2wLm9PzR4kVn\n```",
        ("fx_live_8HqT2wLm9PzR4kVn",),
    ),
    (
        "password",
        'A senha do PlayStation do Rafa é "futebol10" tudo minúsculo',
        ("futebol10",),
    ),
    (
        "pin",
        "💳 PIN do cartão da mercearia: 6 2 7 1 ✅",
        ("6 2 7 1",),
    ),
    (
        "seed",
        "As 12 palavras da carteira de bitcoin do meu marido são: canal lemon tribe worry "
        "ozone fatal scissors admit lunar pledge velvet sudden",
        ("canal lemon tribe", "worry ozone fatal", "scissors admit lunar", "pledge velvet sudden"),
    ),
    (
        "code",
        "Hoje foi um caos: a reunião durou 2 horas, o Tiago esqueceu o lanche, o código do "
        "cacifo da Amazon é 773 915 e ainda tenho de passar no Continente antes das 20h.",
        ("773 915",),
    ),
)

ORDINARY: tuple[str, ...] = (
    # English
    "The till says we took £1,482.60 today, best Saturday since March",
    "Supplier invoice INV-20931 is due on the 28th, remind me on Monday",
    "Leo's Fortnite level is 187 now and he won't stop talking about it",
    "The school's wifi blocks Roblox, so he plays at lunch on his phone instead",
    "Dad's bank changed their phone number to 0345 300 0000, write it down for him",
    "Mum's pension goes in on the 4th of every month, £812.40",
    "GitHub says backup codes can only be used once, so I should print new ones",
    "The BitLocker screen came up again after the BIOS update, I need to find the key "
    "in my Microsoft account later",
    "The Tesla's charging limit is set to 80% and it's at 62 now",
    "Ring doorbell firmware is version 3.42.11, is that the latest?",
    "um so the uh the printer is an HP OfficeJet 8022e, can you find me ink for it",
    "Flight TP1351 lands at 14:35, Gate 22",
    "The parcel's tracking number is JD014600006281234567, it's stuck in Leeds",
    "Correction: the dentist is at 4:15 not 4:50",
    "The old boiler code was F28, the new fault it shows is F75",
    "The score ended 3-1, Leo scored the second one 🎉⚽",
    'My password manager flagged "reused password" on four sites, I should sort that '
    "out this weekend",
    "Our postcode is BS8 4QT for the delivery form",
    "Call reception on extension 4417 if the card machine freezes again",
    "The router's model number is RAX50 and it's on firmware 1.0.16.128",
    "Reminder: the bins go out Tuesday, swimming is at 5:30, and the car's MOT expires 14/09",
    "The Square reader costs £19 and takes 1.75% per tap",
    "```\nfor i in range(10):\n    print(i)\n```\nLeo asked what this prints",
    "Order #4821-7730 from the wholesaler arrived with two boxes missing",
    "His Steam account is level 34 and he has 212 games, which is ridiculous",
    "Dad can never remember his PIN so he always goes into the branch instead",
    "Busy day: dentist at 3, pick up Mia at 17:45, the Amazon order 114-3958271-4428156 "
    "arrives tomorrow, and we need milk.",
    "The new password rules at school say 12 characters minimum, with a symbol",
    "Our Wi-Fi network's called SmithFamily_5G, the guest one is SmithFamily_Guest",
    "The 2FA app shows a new code every 30 seconds, that's normal right?",
    # Portuguese
    "A caixa registou 1.482,60 € hoje, o melhor sábado desde março",
    "A fatura FT 2025/3381 do fornecedor vence dia 28",
    "O Rafa chegou ao nível 87 no Free Fire e não fala de outra coisa",
    "O número de atendimento do Banco do Brasil é 4004 0001",
    "A aposentadoria da vó cai todo dia 5, R$ 1.412,00",
    "O Google diz que cada código de backup só serve uma vez",
    "A chave de recuperação está guardada na conta Microsoft, vejo isso depois",
    "A app do carro diz que a bateria está a 62% e a autonomia é de 310 km",
    "O voo TP1351 aterra às 14h35 na porta 22",
    "O código de rastreio da encomenda é LB123456789PT, ainda está em Lisboa",
    "Correção: a consulta é às 16h15, não às 16h50",
    "O código de erro antigo da caldeira era F28, agora mostra F75",
    "O jogo acabou 3 a 1, o Rafa fez o segundo golo 🎉⚽",
    "O código postal da loja é 4050-262 Porto",
    "Liga para a extensão 217 se o terminal de pagamento bloquear outra vez",
    "O modelo do router é o MEO Fibergateway GR241AG, versão 3.4.11",
    "é... então, tipo, a reunião da escola é às sete e meia, tá?",
    "A senha do wifi da escola mudou e o Rafa já não consegue entrar",
    "O meu pai nunca se lembra do PIN, por isso vai sempre ao balcão",
    "A encomenda nº 4821-7730 do armazém chegou com duas caixas a menos",
    "O Pix da pizzaria caiu, paguei R$ 87,90 no cartão",
    "A nova regra da escola diz que a senha tem de ter pelo menos 12 caracteres",
    "A app de autenticação gera um código novo a cada 30 segundos, é normal?",
    'Ele escreveu "senha" errado no trabalho de português, ficou "cenha" 😂',
    "A fechadura inteligente custou 189 € e a instalação 40 €",
    "O Tiago tirou 17 no teste de matemática e 15,5 a físico-química",
    "A pressão dos pneus da frente está a 2,3 bar, segundo a app",
    "O meu CPF está irregular na Receita? Como é que eu consulto?",
    "Lembra-me de pedir à minha mãe o número do cartão de cidadão dela amanhã",
    "A loja abre às 7h30 e fecha às 19h, ao sábado só até às 13h",
)


# The sentences a review of the rules above found: ordinary ones they withheld ("sim" is
# Portuguese "yes", not a SIM card; a sum, a goal or an alarm's time set; a number with its
# unit; a heating or a speed "override"; a tracking, discount or booking code "found"; the
# line after a block of code that closed), and secrets of the same shapes they still missed.

#: ordinary sentences the review found withheld
REVIEW_ORDINARY: tuple[str, ...] = (
    # "set it to", "pus", "mudei para" and a number, in a sentence that names no PIN
    "Sim, pus 1500 na poupança este mês",
    "Sim, coloquei 2500 no depósito a prazo",
    "Sim, meti 3000 no PPR",
    "Sim, defini 2500 como orçamento",
    "Sim, escolhi 2024 como ano da viagem",
    "Sim, mudei para 1800 a hora do jantar",
    "My alarm on the phone, I set it to 0545 for the flight",
    "O alarme da casa toca às 7, mudei para 0730",
    "The alarm system beeps at night, I set it to 2230 so it arms",
    "The oven code E3 came up, I set it to 2200",
    "The thermostat's code is wrong, I set it to 2150",
    "Para o jantar pus 2000 gramas de arroz, o código da receita é simples",
    "Mudei para 2100 o código de cores no Excel",
    "Defini 2000 como meta de passos, o código promocional não deu",
    "The code club meets weekly, I went with 1630",
    "The postcode form wanted a code, I set it to 1100 Lisbon",
    "the lock screen timeout, I set it to 1800 seconds",
    "safe mode, I set it to 2400 baud",
    "I got the card from the gym and set it to 1500 a month",
    "The birthday card was late, I went with 2000",
    # an override, a "desarme", that keeps nothing shut
    "The heating override is 2100 watts",
    "The thermostat override is 2230 tonight",
    "The override is 1500 for the hotel budget",
    "Speed override: 1200 rpm on the washer",
    "A desarme da bomba durou 1200 segundos",
    "The teacher let me override the deadline, it's now 1700 on Friday",
    # "found it" after a code one does not sign in with
    "What's the tracking code? Found it, 448 219",
    "Where's the discount code? nvm found it, 250 off",
    "The booking reference code? Found it: 123 456",
    # the line after a block of code that closed
    "Here is the yaml:\n```\ndb:\n  password:\n```\nThanks for looking!",
)

#: look-alikes of the same shapes, written after the rules were mended
REVIEW_LOOK_ALIKES: tuple[str, ...] = (
    "Sim, pus 4000 no fundo de emergência",
    "Sim, mudei para 2200 a meta de calorias do mês",
    "Sim, escolhi 1990 como tema da festa",
    "Sim, defini 1800 segundos como tempo limite da sessão",
    "My phone alarm, I changed it to 0615 for tomorrow",
    "O alarme do telemóvel toca às 6, mudei para 0645",
    "The boiler showed error code F28, I set it to 2150 and it stopped",
    "The code of conduct says breaks end at 3, I went with 1545 for mine",
    "The dryer override is 1400 rpm",
    "The override for the deadline is 1700 on Friday",
    "The charger's power override is 2400 watts on the new one",
    "Where's the promo code? Found it, 200 off the first order",
    "What's the order tracking code? Got it: 552 801",
    "Coloquei 1200 watts no micro-ondas e o código do forno apagou",
    "```\npassword:\n```\nThat's the template, fill it in later",
    "Mudei a senha do email. Ficou para amanhã às 21",
)

#: secrets of the same shapes the review found missed: (message, each value in it)
REVIEW_SECRETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the Ring login is john.smith@gmail.com and Doorbell_Sunny9", ("Doorbell_Sunny9",)),
    ("The Ring login is our family email, and Doorbell_Sunny9", ("Doorbell_Sunny9",)),
    ("The app wants a PIN. I set it to 2806", ("2806",)),
    ("Bank sent me an OTP. Got it, 112 938", ("112 938",)),
    ("The PIN? Changed it to 6618", ("6618",)),
    ("Mudei a senha do email. Ficou Gato Preto 21", ("Gato Preto 21",)),
    # a lock's code found after it was asked for, and a PIN set to a year
    ("What's the gate code? Found it: 4471.", ("4471",)),
    ("Qual é o código do portão? Achei, 4471.", ("4471",)),
    ("Where did I write the safe combination? Found it: 1987.", ("1987",)),
    ("The lockbox code for the Airbnb, hold on. Found it, 2580.", ("2580",)),
    ("The intercom code? Here it is: 3090", ("3090",)),
    ("The PIN to my card is in the safe, I set it to 1987.", ("1987",)),
)
