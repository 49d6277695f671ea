"""Secrets told inside long, ordinary chat messages, English and Portuguese (Brazilian and
European), withheld whatever else the message says; messages that only look like them are kept.

Each secret is one clause among others: a paragraph about a trip, a move, a parent's new phone
or a family's shared account; notes for the babysitter and lists of chores; one said and then
asked to be remembered, corrected in the same message ("no wait, it's 5832", "quer dizer"),
two in one message, one in a message forwarded or quoted; in chat's abbreviations and slang
("pwd", "pw", "snh", "cód.", "tá", "vc", "pq", "né", "tipo"); as European Portuguese says it
("palavra-passe", "código multibanco", "NIB") and Brazilian ("senha do app do banco", a Pix
password). And what is not one: numbers of every sort in the same kind of message, talk about
passwords and codes with no value, and a Pix key that is a phone number or an e-mail address,
given to be paid. Their texts are read by the tests of :mod:`tests.test_secret_phrasings`.
"""

from __future__ import annotations

#: a text that gives a secret, and each value in it that must not be readable once redacted
SECRETS: list[tuple[str, list[str]]] = [
    # a trip, a move, a parent's new phone, a family's shared account: the secret one clause of many
    (
        (
            "Hey! So we finally landed in Lisbon after a ridiculous 3 hour delay, the kids "
            "slept the whole flight thank god. The Airbnb host left the key in a lockbox by the "
            "door, the code is 4417, and the wifi password is on a card on the fridge but it's "
            "SardinhaFeliz22 if you need it. Tomorrow we're doing Sintra!"
        ),
        ["4417", "SardinhaFeliz22"],
    ),
    (
        (
            "Mum finally got her new phone set up, took the whole afternoon. She wanted a "
            "passcode she won't forget so it's 1948, the year grandpa was born, and her apple "
            "id password is Roses&Tea1948. I wrote both on a card in her purse, which I know is "
            "not ideal."
        ),
        ["1948", "Roses&Tea1948"],
    ),
    (
        (
            "Moving update: the movers come Thursday at 8, we still have 40 boxes to pack. The "
            "new building has a door code, 2291#, and the mailbox key is with the concierge. "
            "Also the internet guy set up the router, the network is MOVISTAR_4F2A and the "
            "password is kx7PmQ29bT."
        ),
        ["2291", "kx7PmQ29bT"],
    ),
    (
        (
            "ok family, since everyone keeps asking: the netflix account is "
            "silva.family@gmail.com and the pw is Pipoca!2024, please don't change it again "
            "Rui, and don't add new profiles, we're at the limit already."
        ),
        ["Pipoca!2024"],
    ),
    (
        (
            "Olá mãe, já configurei o teu telemóvel novo. O PIN do cartão SIM é 4590 e o código "
            "de desbloqueio que escolheste é 121212. A palavra-passe do email ficou "
            "Gaivota1955, escrevi tudo num papel que está na gaveta da cozinha."
        ),
        ["4590", "121212", "Gaivota1955"],
    ),
    (
        (
            "Dad called again about the bank. I sat with him and we reset everything: his "
            "online banking password is now Ferreira!1949 and the card PIN stays the same "
            "(0311). He'll forget by Friday, so I put them in my password manager too."
        ),
        ["Ferreira!1949", "0311"],
    ),
    (
        (
            "Gente, chegamos em Floripa! A viagem foi tranquila, só o Pedro que enjoou na "
            "serra. O apartamento é lindo, de frente pro mar. A dona deixou as instruções: a "
            "senha da fechadura eletrônica é 738291 e a senha do wifi é praiamole2024. Amanhã "
            "vamos pra Lagoa."
        ),
        ["738291", "praiamole2024"],
    ),
    (
        (
            "Mudámos finalmente de casa! Ainda há caixas por todo o lado e a Inês não encontra "
            "os brinquedos. O código da porta do prédio é 1793 e a palavra-passe da net nova é "
            "Alfama_2025, para quando vierem cá jantar no sábado."
        ),
        ["1793", "Alfama_2025"],
    ),
    (
        (
            "Grandma's new tablet: passcode 2207 (her birthday, she insisted), google account "
            "is rosa.lima1942@gmail.com, pw Azaleia42. I told her to never give that to anyone "
            "who calls."
        ),
        ["2207", "Azaleia42"],
    ),
    (
        (
            "The kids have been super excited about the trip, Maria made a packing list with 14 "
            "items and we're only allowed 1 bag each. Oh, before I forget, the password for the "
            "airline account is Viagem2025!, in case you need to check us in."
        ),
        ["Viagem2025"],
    ),
    (
        "Mom's phone is set up. Her PIN is 5-5-0-1 and her voicemail pin is 9090. She says hi.",
        ["5-5-0-1", "9090"],
    ),
    (
        (
            "A dona Lurdes, a vizinha de baixo, tá com o celular novo. Configurei tudo: a senha "
            "de desbloqueio é 070707 e a do WhatsApp (verificação em duas etapas) é 112233. Ela "
            "anotou num caderninho, fazer o quê."
        ),
        ["070707", "112233"],
    ),
    (
        (
            "Sorry for the long message. So the plan is: Sam picks up the kids at 3:15, I'll be "
            "home by 6. Dinner is the lasagna in the freezer, 180 degrees for 45 min. The iPad "
            "passcode is 842105 but they only get 30 min each. Bedtime 8:30 for both, no "
            "exceptions lol"
        ),
        ["842105"],
    ),
    (
        (
            "Holiday let details from the owner: 'Key safe is to the left of the front door, "
            "code C1974X.'"
        ),
        ["C1974X"],
    ),
    # household logistics: notes for the babysitter, lists of chores, bank details left behind
    (
        (
            "Notes for Ana (babysitter): Leo goes to bed at 8, Mia at 8:30 after her story. "
            "Allergies: peanuts (Mia). The alarm code is 6180 if you go out to the garden, "
            "press OFF first. Emergency numbers are on the fridge. Wifi: CasaAzul / "
            "girafa-laranja-77. Thanks!!"
        ),
        ["6180", "girafa-laranja-77"],
    ),
    (
        (
            "To do this weekend:\n- take the car for its inspection\n- pay the water bill\n- "
            "change the router password to Limoeiro#88 (the old one leaked)\n- buy birthday "
            "present for Joana\n- call grandma"
        ),
        ["Limoeiro#88"],
    ),
    (
        (
            "Oi Jéssica, obrigada por ficar com as crianças hoje! Deixei a janta pronta na "
            "geladeira, é só esquentar. A Lara dorme às 20h e o Tomás pode ficar até 21h. Se "
            "precisar sair, o código do alarme é 2468 e a chave reserva fica no vaso da "
            "entrada. A senha do wifi é Tomas2017."
        ),
        ["2468", "Tomas2017"],
    ),
    (
        (
            "Coisas pra fazer amanhã:\n1. pagar o boleto da luz\n2. levar o carro na "
            "revisão\n3. mandar pra tia Cida a senha nova do wifi: Jabuticaba77\n4. comprar "
            "ração"
        ),
        ["Jabuticaba77"],
    ),
    (
        (
            "Hi Carla, a few notes for tomorrow: the dog eats twice a day (one cup), walk him "
            "around 7. The back door sticks, push hard. The code for the garage keypad is 7755, "
            "and please don't let Max on the sofa lol"
        ),
        ["7755"],
    ),
    (
        (
            "Bank stuff for you while I'm away: sort code 40-47-84, account 61023456, the card "
            "PIN is 4406, only use it for emergencies"
        ),
        ["40-47-84", "61023456", "4406"],
    ),
    ("ok remember this one: spare key lockbox 0880, it's behind the bins", ["0880"]),
    (
        (
            "We're renting a car in Madeira, the guy at the desk gave us a code for the key box "
            "at the airport parking because we land at midnight: 5190. Then it's a 40 minute "
            "drive to Porto Moniz, hotel check-in until 2am."
        ),
        ["5190"],
    ),
    (
        (
            "The estate agent emailed, we get the keys on the 3rd. The alarm company says the "
            "temporary disarm code is 1-9-7-3 until we set our own, and the bins go out on "
            "Tuesdays."
        ),
        ["1-9-7-3"],
    ),
    (
        (
            "Note to self, for when I inevitably forget: the storage unit is #214, gate code "
            "8806*, and the padlock is the brass one, combo 3-1-4."
        ),
        ["8806", "3-1-4"],
    ),
    (
        (
            "the babysitter asked for the wifi so I texted her: 'network SmithHome, password "
            "Lemonade!2019'"
        ),
        ["Lemonade!2019"],
    ),
    (
        (
            "Lista para o fim de semana:\n- ir às compras\n- pagar a luz pelo MB WAY\n- dar ao "
            "senhorio o código novo do portão, 3349\n- lavar o carro"
        ),
        ["3349"],
    ),
    (
        (
            "Meu pai não lembra nada, então deixo aqui: celular dele desbloqueia com 2 5 8 0, "
            "senha do banco 741963, e o email é o nome dele mais 1952, tipo joaquim1952"
        ),
        ["2 5 8 0", "741963", "joaquim1952"],
    ),
    (
        (
            "New address is 14 Oak Lane, and the key code for the side gate is 4471 - the old "
            "owners never changed it, so we'll do that next week."
        ),
        ["4471"],
    ),
    (
        (
            "ok so funny story, I locked myself out of the house and had to call Tom, and "
            "anyway the lockbox code is 3019 now because I changed it right after"
        ),
        ["3019"],
    ),
    # said, and asked to be remembered
    (
        "remember that the alarm code is 3951 now, they changed it after the break-in next door",
        ["3951"],
    ),
    ("please remember this for me: my locker combination at the gym is 17-32-08", ["17-32-08"]),
    (
        "lembra que o código do cadeado do armário da academia é 0-4-2-7, eu sempre esqueço",
        ["0-4-2-7"],
    ),
    ("guarda aí pra mim: senha do gov.br é Brasil@1990", ["Brasil@1990"]),
    (
        "remember that the safe in the bedroom opens with 24 36 12 and the spare keys are in it",
        ["24 36 12"],
    ),
    ("Lembra-me: o código do cacifo no ginásio é 5-1-9-0", ["5-1-9-0"]),
    (
        (
            "Remember: Pedro's pickup password at the nursery (the word they ask at the gate) "
            "is 'girafa azul', don't tell him we told you"
        ),
        ["girafa azul"],
    ),
    ("remember my new pin? it's 8830, don't forget it this time", ["8830"]),
    # corrected in the same message
    ("the garage code is 5823, no wait, it's 5832, I always mix those up", ["5823", "5832"]),
    (
        "wifi pass is Bolacha2020... no sorry that's the old one, it's Bolacha2023 now",
        ["Bolacha2020", "Bolacha2023"],
    ),
    (
        (
            "a senha do roteador é 12345678, quer dizer, não, isso era a de fábrica, agora é "
            "Roteador#Casa9"
        ),
        ["Roteador#Casa9"],
    ),
    ("the pin for the card is 8421 — sorry, typo, 8412", ["8421", "8412"]),
    ("the pin is 4471, I mean 4417, I always swap the last two", ["4471", "4417"]),
    ("wifi pass is Tartaruga11. Sorry, typo, Tartaruga12", ["Tartaruga11", "Tartaruga12"]),
    ("the alarm code is 1122. No wait, 2211.", ["1122", "2211"]),
    ("a senha é Lua2020. Quer dizer, Lua2021, mudei mês passado", ["Lua2020", "Lua2021"]),
    ("a senha do app do banco é 445566. Não, espera, é 445577", ["445566", "445577"]),
    # two secrets in one message
    ("a senha do app do banco é 159753 e a senha do cartão é 8520", ["159753", "8520"]),
    ("the door code is 2580 and the alarm is 0119", ["2580", "0119"]),
    (
        (
            "Quick one: user for the school portal is mae.sofia and the password is Sofia#2015, "
            "and the one for the dentist app is the same but with a 2 at the end, Sofia#20152"
        ),
        ["Sofia#2015", "Sofia#20152"],
    ),
    (
        "O PIN do cartão de débito é 7712 e o do cartão de crédito é 3390, não confundas.",
        ["7712", "3390"],
    ),
    (
        (
            "lol ok so the wifi pw at the cabin is loonlake2019 and the door code is 8-2-4-6 if "
            "u get there before us"
        ),
        ["loonlake2019", "8-2-4-6"],
    ),
    ("senha do netflix: Pipoca#2023, senha do globoplay: Novela!99", ["Pipoca#2023", "Novela!99"]),
    ("code for the bike shed is 9 1 1 4 and the wifi is Hedgehog_44", ["9 1 1 4", "Hedgehog_44"]),
    (
        (
            "o código de acesso ao condomínio é 3378 e a senha do wi-fi da área comum é "
            "Piscina2024, a síndica pediu pra não espalhar"
        ),
        ["3378", "Piscina2024"],
    ),
    ("PIN do telemóvel: 2503. PIN do cartão: 6671. Não percas isto.", ["2503", "6671"]),
    ("a palavra-passe do MB WAY é 123987 e o PIN do multibanco é 4512", ["123987", "4512"]),
    # forwarded or quoted from someone else
    (
        (
            'forwarding what dad sent me: "hi son, the password for the electricity company '
            'site is Benfica_1904, the login is my email. love, dad"'
        ),
        ["Benfica_1904"],
    ),
    (
        (
            "> From Marta: the key safe at the cottage is 0772, code for the gate is 1357\nso "
            "that's sorted for the weekend"
        ),
        ["0772", "1357"],
    ),
    (
        (
            'Olha o que a síndica mandou no grupo: "Moradores, a nova senha do portão da '
            'garagem é 5566#, válida a partir de segunda." Salva aí.'
        ),
        ["5566"],
    ),
    (
        (
            "FYI forwarding: > Your one-time passcode is 739 204. It expires in 10 minutes. Do "
            "not share it."
        ),
        ["739 204"],
    ),
    (
        (
            "Forwarded from Dad: 'Son, the PIN for the new debit card is 6293. I'm sending it "
            "here because the letter got wet. Delete after reading.'"
        ),
        ["6293"],
    ),
    ("[10:42, 12/03/2025] Mãe: filha a senha do meu email é Rosa1958 não esquece", ["Rosa1958"]),
    (
        "Mãe mandou no grupo: 'gente a senha do wifi da casa de praia é Praia#2025, não percam'",
        ["Praia#2025"],
    ),
    # chat abbreviations and slang, English
    ("pwd for the nas is Tr0ub4dor&3 btw", ["Tr0ub4dor&3"]),
    ("pw for the printer admin page: canon8842", ["canon8842"]),
    ("acct pw: Zebra!Crossing7", ["Zebra!Crossing7"]),
    ("pw 4 the wifi: Bananas&Custard", ["Bananas&Custard"]),
    ("my pw's the same as before just w/ a 9 at the end now so Marmite889", ["Marmite889"]),
    ("pwd: hunter22 lol dont judge", ["hunter22"]),
    ("ur netflix pw is still popcorn22 right? i need it for the tv at grandmas", ["popcorn22"]),
    ("the pin's still 2580 btw, never changed it", ["2580"]),
    ("Dad's wifi: the network's BT-Hub-5G and the pw's Kettle!Tea1955", ["Kettle!Tea1955"]),
    ("pw's still hunter22", ["hunter22"]),
    # chat abbreviations and slang, Portuguese ("snh", "cód.", "tá", "vc", "pq", "né", "tipo")
    ("a snh do wifi lá de casa é pastel123, vc pode usar quando vier", ["pastel123"]),
    ("cód. do portão: 4471", ["4471"]),
    ("cód. de verificação 552 901, expira em 5 min", ["552 901"]),
    ("vc lembra a senha do app do banco? é 2580 né, pq o pai tá pedindo", ["2580"]),
    (
        "tipo, a senha do wi-fi do escritório mudou pq alguém vazou, agora é Escritorio@2025, tá?",
        ["Escritorio@2025"],
    ),
    ("a senha do app do Nubank da minha mãe é 1357 tá, ela pediu pra eu ver o extrato", ["1357"]),
    ("snh do email: Girassol#12", ["Girassol#12"]),
    ("vc pode entrar no meu spotify, login é meu email e a snh é musica2024", ["musica2024"]),
    (
        "tipo, a senha do banco é a data de nascimento da vó ao contrário, 5491, vc sabe né",
        ["5491"],
    ),
    ("a senha do wifi tá Manga2024 agora, troquei ontem", ["Manga2024"]),
    ("a senha é tipo gatinho_fofo22, bem ridícula né", ["gatinho_fofo22"]),
    ("minha snh do insta é bolo_de_cenoura9, nem adianta tentar hackear kkk", ["bolo_de_cenoura9"]),
    ("tá aqui a senha do wifi do tio: CasaDoTio_88, ele disse que pode usar", ["CasaDoTio_88"]),
    ("Snh do cartão: 4521 (não conta pra ninguém pfv)", ["4521"]),
    ("a senha ainda é Girassol22, ninguém mudou", ["Girassol22"]),
    ("snh: Borboleta7", ["Borboleta7"]),
    ("minha snh é 8822", ["8822"]),
    ("cód. de acesso: 99 88 77", ["99 88 77"]),
    ("a senha continua a ser Sardinha9", ["Sardinha9"]),
    # European Portuguese: palavra-passe, código multibanco, NIB
    ("o código multibanco do cartão novo é 8013, não o dês a ninguém", ["8013"]),
    (
        "manda-me o dinheiro do jantar para o meu NIB, 0007 0000 00123456789 23, obrigada",
        ["0007 0000 00123456789 23"],
    ),
    (
        (
            "A palavra-passe do wi-fi lá de casa é 'bacalhau com natas' (tudo minúsculas, com "
            "espaços), a minha mãe é que escolheu."
        ),
        ["bacalhau com natas"],
    ),
    (
        (
            "A tua palavra-passe provisória do portal das finanças é Xz82kLq1, muda-a quando "
            "entrares."
        ),
        ["Xz82kLq1"],
    ),
    ("vc me passa o código multibanco? ah não, já sei, é 4487", ["4487"]),
    ("o código multibanco? é 3377, não digas a ninguém", ["3377"]),
    # Brazilian banking: the bank app's password, a Pix password, a card's
    ("a senha do pix é 3344, não esquece", ["3344"]),
    (
        (
            "Pessoal, criei a conta da família no Disney+: email familia.souza@outlook.com, "
            "senha ReiLeao#94. Não mudem a senha pfv!"
        ),
        ["ReiLeao#94"],
    ),
    (
        (
            "Dei a senha do netflix pra minha irmã, é CafeComLeite!88, mas pedi pra ela não "
            "passar pra ninguém"
        ),
        ["CafeComLeite!88"],
    ),
    (
        (
            "pode fazer o pix pra minha chave que é meu email, ana.paula@gmail.com, e se "
            "precisar entrar no app pra ver o comprovante a senha é 246810"
        ),
        ["246810"],
    ),
    (
        (
            "Amor, o código do interfone do prédio da sua mãe é 1502 + chave, ela trocou ontem "
            "pq o porteiro saiu"
        ),
        ["1502"],
    ),
    ("o pin do meu cartão mudou pq bloqueei, agora é 9023, o antigo era 4420", ["9023", "4420"]),
    # a value between commas, after a key asked and answered, a code word, a list
    (
        (
            "Bia, the wifi at the new flat: network is NOS-8A3F, password: h7Jq-22mX-p9. Also "
            "the heater takes 20 minutes to warm up."
        ),
        ["h7Jq-22mX-p9"],
    ),
    (
        "The kids' pickup code word at the nursery is pineapple, they change it every term",
        ["pineapple"],
    ),
    (
        (
            "Passwords for the grandparents' accounts, in case I'm not around: vovó's email - "
            "Jasmim@58, vovô's bank - 4821, the streaming - familia2020"
        ),
        ["Jasmim@58", "4821", "familia2020"],
    ),
    ("the gate code, 7731, works from 6am", ["7731"]),
    ("a senha do wifi, Lontra#22, tá no papel também", ["Lontra#22"]),
    ("o pin, 4512, é o mesmo do outro cartão", ["4512"]),
    ("the code for the key box is 3321", ["3321"]),
    ("o código do cofre? hmm, acho que é 5521", ["5521"]),
    ("what's the pin? oh, I know, it's 4410", ["4410"]),
    ("safe word is banana", ["banana"]),
    ("the codeword for pickup is flamingo", ["flamingo"]),
    ("same as the netflix one just with a 7, Pipoca77 - that's the password", ["Pipoca77"]),
    (
        (
            "logins for everyone in the house, so nobody has to ask me again: mum - Tulip!55, "
            "dad - Rover1958"
        ),
        ["Tulip!55", "Rover1958"],
    ),
]

#: messages about the same things that give no secret
ORDINARY: list[str] = [
    # long messages about life, with numbers of every sort that are no secret
    (
        "We finally landed in Lisbon after a 3 hour delay! Flight TP1351 was packed, the kids "
        "slept the whole way. Hotel is on Rua Augusta 214, room 1408 on the 14th floor. "
        "Tomorrow we're doing Sintra, the train leaves at 9:40 from platform 3."
    ),
    (
        "Mum's new phone is set up finally. Took 2 hours because she kept forgetting her Apple "
        "ID password, so we reset it and she wrote the new one in her little notebook. I told "
        "her never to give her passwords or codes to anyone who calls."
    ),
    (
        "Moving update: the movers come Thursday at 8, we still have 40 boxes to pack. The new "
        "place is number 27, flat 3B, and the postcode is M14 5RT. The internet gets installed "
        "on the 12th, they said the router comes with its own password printed on the back."
    ),
    (
        "Gente, chegamos em Floripa! A viagem foi tranquila, só o Pedro que enjoou na serra. O "
        "apartamento fica na rua das Gaivotas, 318, apto 1204, de frente pro mar. A dona disse "
        "que a senha do wifi tá num papel em cima da TV. Amanhã vamos pra Lagoa às 9h."
    ),
    (
        "Mudámos finalmente de casa! Ainda há caixas por todo o lado e a Inês não encontra os "
        "brinquedos. A morada nova é Rua do Salitre 45, 2º Esq, 1250-198 Lisboa. A net só fica "
        "instalada dia 15, o técnico vem entre as 9h e as 13h."
    ),
    (
        "The alarm went off at 3:15am again, the panel showed zone 2, the engineer is coming "
        "Friday between 8 and 12. Apparently the sensor in the hallway is faulty."
    ),
    (
        "The kids have their school photos on the 9th, Maria is in class 4B and Tom in 2A. The "
        "form says the pack with 6 prints is £18.50."
    ),
    (
        "Grandma's new tablet arrived! Samsung Galaxy Tab A9, 64GB. She already video-called "
        "all 5 grandkids and sent me 37 photos of her cat. Next step is teaching her how to use "
        "the PIN without writing it on the back."
    ),
    (
        "I sat with Dad for an hour to set up his online banking. The bank sent a letter with a "
        "temporary password and a card reader, and he needs to choose a new password with at "
        "least 10 characters. We'll finish tomorrow."
    ),
    (
        "Airbnb host just messaged: check-in is from 3pm, the address is 12 Rua da Rosa, 3rd "
        "floor, and she'll send the lockbox code on the day of arrival."
    ),
    (
        "Dad's new phone number is 912 345 678, save it, the old one was disconnected. He's "
        "still learning how to unlock it lol"
    ),
    (
        "Sam picks up the kids at 3:15, I'll be home by 6. Dinner is the lasagna in the "
        "freezer, 180 degrees for 45 min. They get 30 min of iPad each. Bedtime 8:30, no "
        "exceptions lol"
    ),
    (
        "A quick reminder that the hospital appointment is at 10:40 on the 22nd, room 5, and "
        "the letter has everything the receptionist needs."
    ),
    (
        "Orçamento da mudança: caminhão 1.850 reais, ajudantes 2 x 250, caixas 38 unidades. A "
        "mudança é dia 14, das 8h às 17h. O novo apê é no 7º andar, bloco B, 702."
    ),
    (
        "Two things: the plumber comes at 9, and the car's MOT is due on the 30th. Oh and the "
        "new bins are collected on Mondays now."
    ),
    (
        "The safe in the hotel room didn't work, reception came up and reset it, then we locked "
        "our passports in it. Room 512, 5th floor, breakfast from 7 to 10:30."
    ),
    (
        "Just paid the nursery, invoice 2025-0411, £640 for April. Next payment on the 1st of "
        "May. They take bank transfer or card."
    ),
    (
        "Today's numbers: Leo weighed 18.4 kg at the doctor, 108 cm tall, temperature 37.2. The "
        "doctor said to come back in 6 months, appointment on the 14/11 at 9:20."
    ),
    (
        "Sorry, long message. So Mum's in the hospital, ward 7, bed 22, visiting hours 2 to 8. "
        "The doctor said her blood pressure was 150 over 95 and they're keeping her for 2 "
        "nights. She asked for her phone charger and her reading glasses."
    ),
    (
        "a Lara tem 6 anos, calça 28 e veste tamanho 8, o aniversário dela é dia 12/09 se "
        "quiser mandar alguma coisa"
    ),
    "[10:42, 12/03/2025] Mãe: filha, chegou a conta de luz, 187,40, vence dia 20",
    # household logistics with no secret
    (
        "Babysitter notes: Leo goes to bed at 8, Mia at 8:30 after her story. Allergies: "
        "peanuts (Mia). Emergency numbers are on the fridge: my mobile 07700 900123, the "
        "pediatrician 020 7946 0018. Pizza money is in the drawer, £20."
    ),
    (
        "To do this weekend:\n- take the car in for its inspection (booking at 10:15)\n- pay "
        "the water bill, £43.20\n- change the router password, the old one leaked\n- buy a "
        "birthday present for Joana\n- call grandma"
    ),
    (
        "Chores:\n- vacuum the living room\n- change the smoke alarm battery (9V)\n- book the "
        "boiler service, code 4 on the display means low pressure\n- water the plants"
    ),
    (
        "Note to self: storage unit is #214 on level 2, the office closes at 6pm, and the rent "
        "is £89 a month, due on the 1st."
    ),
    (
        "the wifi at the cabin is pretty bad, 2 bars at most, so download the movies before we "
        "go. The password is on the router like always."
    ),
    (
        "ok so funny story, I locked myself out of the house and had to call Tom, who came over "
        "with the spare key at 11pm. I owe him a beer or 3."
    ),
    "Lembra que a reunião de pais é quinta às 19h, sala 12, e tem que levar o boletim assinado",
    (
        "lembra-me de pagar a renda até dia 8, são 750 euros, e de ligar à senhoria por causa "
        "da humidade"
    ),
    (
        "Hi Carla, notes for tomorrow: the dog eats twice a day (one cup), walk him around 7. "
        "The back door sticks, push hard. The keypad on the garage is broken, so use the side "
        "door. Thanks again!"
    ),
    (
        "the lockbox at the cottage is the grey one by the gate, the owner will text the code "
        "the morning we arrive"
    ),
    "Key safe is to the left of the front door, the owner will text the code on Friday.",
    # reminders, forwards and corrections that carry none
    "remember that the dentist is on Tuesday at 4:45, room 12, and bring the insurance card",
    (
        "I keep forgetting the alarm code, I need to write it down somewhere safe. Remember to "
        "ask Pedro for it tomorrow."
    ),
    "no wait, the party is on the 14th not the 13th, and it starts at 7, sorry for the confusion",
    (
        "forwarding what dad sent: \"son, the electricity bill came, it's 87.45 this month, the "
        "reference number is 2231 8871 0042 and it's due on the 20th. love, dad\""
    ),
    "the meeting is at 3, no wait, 3:30, sorry",
    (
        "Forwarding from the school: 'Dear parents, the trip to the zoo is on 14/06, the cost "
        "is £12.50, please pay via ParentPay using your child's reference. The coach leaves at "
        "8:45.'"
    ),
    "no wait, it's 4:15 not 4:45, I looked at the wrong ticket",
    "I mean, 8 characters is the minimum but 12 is better",
    "the party's on Saturday, no wait, Sunday, at 3pm, at 24 Elm Road",
    "wifi password is on the fridge. Sorry, I mean on the router",
    "The alarm code is on the fridge. Sorry, we land 1 hour late, around 2230",
    "the pin is on the back. Wait for me at the station, 6pm",
    "my pin is stuck in the machine. Actually the card is, the machine ate it",
    # talk about passwords, PINs and codes without a value
    (
        "Fui ao banco porque o multibanco me comeu o cartão. Tive de pedir um código multibanco "
        "novo, chega por carta dentro de 5 dias úteis. Entretanto levantei 200 euros ao balcão."
    ),
    "O meu NIB está nas faturas, se precisares pede-me, não o vou pôr aqui no grupo.",
    (
        "Troquei a palavra-passe do email porque recebi um alerta de login estranho às 3h da "
        "manhã. Agora tem 16 caracteres e uso um gestor de palavras-passe."
    ),
    (
        "vc viu que o banco mudou o app? agora pede a senha de 6 dígitos toda vez, tipo, até "
        "pra ver o saldo, pq né, segurança"
    ),
    (
        "pq vc não usa um gerenciador de senhas? tipo o Bitwarden, é de graça e vc só precisa "
        "lembrar de uma senha"
    ),
    (
        "Meu irmão pediu a senha do wifi de novo, já é a terceira vez essa semana, vou imprimir "
        "e colar na geladeira"
    ),
    (
        "the security guy says we should change all the door codes every 6 months, and never "
        "use birthdays"
    ),
    (
        "Quick one: the school portal login changed, now you use your email instead of a "
        "username. They'll send the password by post."
    ),
    (
        "The PIN pad at the supermarket was broken so I paid with my phone, 43 quid for the "
        "weekly shop, crazy."
    ),
    (
        "My password got leaked in some breach, haveibeenpwned says it was in 3 of them, so I "
        "changed it everywhere and turned on 2FA. Took me all evening."
    ),
    (
        "The babysitter asked what the wifi password was and I completely blanked, had to go "
        "look at the router lol"
    ),
    "in the terminal type pwd to see which folder you're in, then ls -la",
    "Ele me mandou o código do cupom, tipo DESCONTO20, mas já tinha expirado né",
    "tá, o código do Uber chegou mas o motorista já tinha ido embora, que ódio",
    (
        "The kids' school sent a new login letter home, I'll set it up at the weekend, they "
        "each get a username and a 6-letter password."
    ),
    (
        "We're thinking of getting one of those keyless door locks, the Yale one with the "
        "keypad costs around 199 euros and you can set up to 20 codes."
    ),
    (
        "Mamãe tá aprendendo a usar o celular novo, já sabe mandar áudio e figurinha, mas ainda "
        "pede ajuda pra lembrar a senha do wifi tipo toda semana."
    ),
    (
        "Lembra-te que o multibanco da esquina está avariado desde segunda, tens de ir ao do "
        "Pingo Doce."
    ),
    (
        "A password manager saves so much hassle, honestly, I used to have 40 different "
        "passwords on sticky notes and now I only remember one."
    ),
    (
        "O técnico da NOS veio instalar a fibra, demorou 3 horas. O router novo é um Sagemcom e "
        "a palavra-passe vem num autocolante por baixo."
    ),
    "pediram o NIB para o reembolso do seguro mas eu disse que mandava por email, não por aqui",
    "My pin got blocked after 3 wrong tries at the ATM, so I'm going to the branch tomorrow at 9.",
    "tipo, vc acha que 8 caracteres é senha suficiente? pq o app do banco pede no mínimo 8 né",
    "a senha tá anotada na agenda da vó, página 12",
    "the pin's still the same as last year, I never change it",
    "a senha ainda é a mesma de sempre, nunca troquei",
    "tipo, a senha do wifi é enorme, tem uns 20 caracteres, ninguém consegue digitar",
    "the gate code is still the old one, ask the neighbours",
    "forgot my pwd again lol, had to reset it for the 3rd time this month",
    "esqueci a snh do app de novo kkk, vou ter que resetar",
    "vc sabe se a senha do wifi mudou? pq o notebook não conecta mais",
    "The kids' pickup password at the nursery is changing next term, they'll email everyone.",
    "the pin, as usual, is in the drawer",
    "the password, 12 characters, was too long for the router",
    "the code, 2019 version, is deprecated",
    "my pin, 4 digits, got blocked",
    "the door code, 3rd floor, is different",
    "the password is still wrong, I give up",
    "a senha continua fraca, tem de ter símbolos",
    "the password was hard, but I remembered it",
    "my password is expiring tomorrow, ugh",
    "a senha tá vencendo amanhã, que saco",
    "the wifi password is working again",
    "a senha é enorme e cheia de símbolos",
    "the code word is something only the kids know, they picked it",
    "a password manager, 1Password, saves me every day",
    "the combination lock, model 1550, is cheap",
    # a Pix key that is a phone number or an e-mail address, and what is paid with it
    "pode me pagar no pix, a chave é meu celular, 11 98765-4321, são R$ 45,50 da pizza de ontem",
    (
        "Faz o pix pra chave ana.paula@gmail.com, é o valor de 120 reais do presente da "
        "professora, cada mãe paga 15"
    ),
    (
        "Manda o Pix pra minha chave, que é o CPF? Não, melhor o email: "
        "joao.pedro88@hotmail.com. São 32,90 cada."
    ),
    (
        "Gente, a vaquinha do churrasco: cada um manda 60 reais pro Pix do Rafa, a chave é o "
        "telefone dele (21) 99876-5432. Quem não mandar até sexta não come picanha kkkk"
    ),
    (
        "Paga por referência multibanco: entidade 21312, referência 123 456 789, valor 45,60 €, "
        "até dia 20."
    ),
    (
        "Mandei o comprovante do Pix, foram 1.250,00 pro pedreiro, chave CNPJ da empresa dele. "
        "Falta pagar mais 2 parcelas."
    ),
    (
        "Meu pai finalmente aprendeu a usar o Pix! Mandou 50 reais pra minha chave (meu email) "
        "só pra testar, e depois mais 0,01 pra ver se chegava."
    ),
    (
        "Vi o extrato e tinha uma compra de 389,90 que eu não fiz, liguei pro banco, bloquearam "
        "o cartão e mandam outro em 7 dias com senha nova."
    ),
    "Me faz um Pix de 25 reais? Chave: 11 91234-5678 (celular). É pro bolo da Bia.",
    "chave pix: joao.silva88@gmail.com, manda os 40 do ingresso até amanhã",
    "A chave Pix é o CPF dela, pede pra ela mandar por mensagem",
    "meu email é ana.souza1990@gmail.com, me manda o convite",
    "login com o email joao.pedro88@hotmail.com, a senha eu te mando depois",
    # other numbers: a tracking code, a postcode, a map's pin, a flat
    "tá, vou te mandar o código de rastreio depois, é tipo BR123456789BR, chega em 5 dias úteis",
    "o pin do mapa tá errado, o restaurante fica na outra esquina, número 1250",
    (
        "Lembra-me que o código postal da casa nova é 4050-123 e que o contador da luz é o "
        "número 12, no rés-do-chão."
    ),
    (
        "My brother's phone number is +351 912 345 678 and his e-mail is rui.santos@sapo.pt, "
        "he's the one selling the bike."
    ),
    "ur netflix is still on my account right? i need to change the plan to 4 screens",
    "o NIB e o IBAN são quase a mesma coisa, o IBAN só tem o PT50 à frente",
    "a chave do carro tá com o porteiro, apto 1502",
    "o código postal é 1250-198, número 45",
]
