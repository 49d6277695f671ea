"""Secrets of banking and of the locks of everyday life as people type them in chat, English
and Portuguese (Brazilian and European), withheld; messages that only look like them are kept.

Among the secrets: a bank's second password and its tokens ("assinatura eletrônica", "frase
de segurança", "memorable word", "código do token", the PIN of MB WAY), a phone's unlock
pattern told by its shape ("o padrão de desbloqueio é um L") or its PIN by what it is made of
("the unlock code is my birth year, 1987"), voicemail PINs, smart locks, gate remotes, a car's
keypad, a gym locker's combination, school and health portals, a guest Wi-Fi on a fridge note,
a streaming profile's PIN; written formally with every number spelled out ("quatro mil
trezentos e doze"), in teenagers' slang and emoji, in English with Portuguese words. And what
is not one: bank talk with no value (fees, branch hours, "o token chegou pelo correio"),
tracking codes, invoice numbers, a tax number asked for, a knitting pattern, a locker's own
number, times and prices. Their texts are read by the tests of
:mod:`tests.test_secret_phrasings`.
"""

from __future__ import annotations

#: a text that gives a secret, and each value in it that must not be readable once redacted
SECRETS: list[tuple[str, list[str]]] = [
    ("o código do token do banco agora é 482913, usa rápido", ["482913"]),
    ("a chave de segurança do Itaú é 7731", ["7731"]),
    ("minha assinatura eletrônica do banco é 908172", ["908172"]),
    ("senha de 6 dígitos do app: 551208", ["551208"]),
    ("o PIN do MB WAY é 2468", ["2468"]),
    ("código de ativação do cartão novo: 3349", ["3349"]),
    ("a frase de segurança que eu cadastrei é gato azul na janela", ["gato azul na janela"]),
    ("token do banco 6 dígitos: 204 881", ["204 881"]),
    ("a senha eletrônica do Bradesco é 4f9k2m", ["4f9k2m"]),
    ("código de acesso ao homebanking da CGD: 77120345", ["77120345"]),
    ("o meu código pessoal do Millennium é 551902", ["551902"]),
    ("senha do cartão de débito é 0917, não conta pra ninguém", ["0917"]),
    ("chave de acesso do internet banking: Lua2019", ["Lua2019"]),
    ("my bank's security key is 660142", ["660142"]),
    ("the token code from the bank is 839 204", ["839 204"]),
    ("the telephone banking passcode is 31415", ["31415"]),
    ("my online banking memorable word is Pinecone", ["Pinecone"]),
    ("o padrão de desbloqueio do meu celular é um L", ["um L"]),
    ("the unlock code is my birth year, 1987", ["1987"]),
    ("phone unlock pin 190387", ["190387"]),
    ("a senha de desbloqueio do telemóvel é 2580", ["2580"]),
    ("my phone passcode is 112233", ["112233"]),
    ("o pin pra desbloquear o tablet da vó é 1940", ["1940"]),
    ("voicemail pin is 8812", ["8812"]),
    ("a senha do correio de voz é 3030", ["3030"]),
    ("o código da caixa de correio de voz é 4521", ["4521"]),
    ("the smart lock code for the front door is 58213", ["58213"]),
    ("a fechadura eletrônica da porta abre com 4490#", ["4490"]),
    ("o código do portão é 1212 e depois aperta a chave", ["1212"]),
    ("gate code is *4471 for the back entrance", ["4471"]),
    ("the car door keypad code is 2-4-6-8-0", ["2-4-6-8-0"]),
    ("o código do teclado da porta do carro é 13579", ["13579"]),
    ("gym locker combination 24-7-18", ["24-7-18"]),
    ("o cadeado do cacifo do ginásio é 0-3-9", ["0-3-9"]),
    ("a combinação do cadeado do armário da academia é 472", ["472"]),
    ("login do portal do aluno: 20231145 senha Escola@22", ["Escola@22"]),
    ("a senha do Portal das Finanças é Lx7hq2Pz", ["Lx7hq2Pz"]),
    ("password for the patient portal is Mychart!55", ["Mychart!55"]),
    ("the school parent portal password: Tigers2024", ["Tigers2024"]),
    ("a senha do SNS 24 é Saude#1955", ["Saude#1955"]),
    ("a senha do Meu INSS é aposentado58", ["aposentado58"]),
    (
        (
            "guest wifi (it's on the note on the fridge): network CasaSilva_Guest, password "
            "bemvindos2024"
        ),
        ["bemvindos2024"],
    ),
    (
        "a rede de visitas é Casa_Convidados e a senha tá no bilhete da geladeira: praia1234",
        ["praia1234"],
    ),
    ("the Netflix profile PIN for dad's profile is 5519", ["5519"]),
    ("o PIN do perfil da Disney+ é 7070", ["7070"]),
    ("pin do perfil das crianças na HBO: 2233", ["2233"]),
    (
        (
            "Querida neta, conforme combinámos, venho por este meio informar-te de que a senha "
            "do meu cartão multibanco é o número quatro mil trezentos e doze"
        ),
        ["quatro mil trezentos e doze"],
    ),
    (
        (
            "Dear Margaret, as promised, I am writing down for you the personal identification "
            "number of my bank card, which is nine three one seven."
        ),
        ["nine three one seven"],
    ),
    (
        (
            "Prezado filho, a senha do banco que o gerente me deu é 6 6 1 2 0 4, por favor "
            "guarde em lugar seguro."
        ),
        ["6 6 1 2 0 4"],
    ),
    (
        (
            "Dear John, the combination to the safe in the study is thirty-six, twelve, "
            "forty-eight. Kindest regards, Mother"
        ),
        ["thirty-six, twelve, forty-eight"],
    ),
    ("mano a senha do wifi é tamojunto2024 kkkk 😂", ["tamojunto2024"]),
    ("pin do insta n tem mas a senha é bruninha_xx07 😭 nao conta", ["bruninha_xx07"]),
    ("bro the ps5 pin is 4269 lol dont tell my mom 💀", ["4269"]),
    ("tipo a pass do meu tlm é 0711 ya", ["0711"]),
    ("fr the wifi pw is skibidi123 💀💀", ["skibidi123"]),
    ("the senha for the router is Familia2020", ["Familia2020"]),
    ("my bank's token code is 903 112, usa logo", ["903 112"]),
    ("o password do wifi is cafezinho88", ["cafezinho88"]),
    ("the código for the gate is 7788", ["7788"]),
    ("the PIN do MB WAY is 8080 remember", ["8080"]),
]

#: a text that only looks like one that gives a secret
ORDINARY: list[str] = [
    "o token chegou pelo correio ontem",
    "a tarifa do pacote de serviços subiu para 32 reais",
    "a agência abre às 10h e fecha às 16h",
    "o código de rastreio é NL123456789BR, chega sexta",
    "the tracking number is 1Z999AA10123456784",
    "a fatura nº 2024/1187 vence dia 15",
    "invoice 4471 was paid on the 3rd",
    "preciso do teu NIF para a fatura",
    "me manda seu CPF que eu faço o Pix",
    "the knitting pattern is a simple L shape with 24 stitches",
    "o padrão do tricô é 2 meia 2 tricô",
    "my locker number is 214",
    "o meu cacifo é o 37",
    "the gym opens at 6:30",
    "the bus comes at 7:15",
    "custa 12,90€ no Continente",
    "it was $4,299 for the used car",
    "a chave de segurança do banco chegou por SMS mas ainda não ativei",
    "o banco pediu a assinatura eletrônica, mas eu esqueci qual era",
    "a senha de 6 dígitos do app é diferente da senha do cartão",
    "reset your phone's unlock pattern if you forget it",
    "o MB WAY cobra 1,20€ por transferência agora",
    "meu código de ativação venceu, vou ligar pro banco",
    "the voicemail pin can be changed in settings",
    "the smart lock battery died again",
    "o portão da garagem não abre com o comando",
    "the car keypad is on the driver's door",
    "a combinação do cadeado tem 3 números",
    "o portal do aluno está fora do ar",
    "the patient portal shows the blood test results from march 12",
    "the wifi password is on the fridge",
    "a senha do wifi tá na geladeira",
    "Netflix added a profile PIN feature",
    "o perfil das crianças na Disney+ não tem PIN",
    (
        "Querida neta, o banco ligou a pedir que eu fosse lá atualizar os dados, vou na "
        "quinta às dez horas"
    ),
    (
        "Dear Margaret, the doctor says my blood pressure is 130 over 85, which is much "
        "better than last year"
    ),
    "kkkk mano perdi o jogo por 3 a 1 😭",
    "bro i got 1500 on the sat lol 💀",
    "tipo tou no 2º ano ya",
    "the senha thing was so confusing",
    "my bank says the token expires in 30 seconds",
    "o código do token muda a cada 60 segundos",
    "o meu número de cliente é o que está no cartão",
    "the branch code is printed on the statement",
    "the Pix limit at night is R$ 1.000",
    "o voo TP1234 sai às 14h50",
    "the unlock code is in the phone's box, I'll look later",
    "the lockbox is next to the door",
    "sala 204 do segundo andar",
    "comprei o ingresso por 45 reais, fila 12 cadeira 8",
    "o padrão é um L mas da cozinha, bancada em L",
    "my birth year is 1987",
    "o PIN do MB WAY tem 4 dígitos e a senha tem 6",
    "gym locker 24 is broken",
    "o código postal é 1000-205 Lisboa",
    "o CEP é 01310-100",
    "the order number is 112-4471920-3345120",
    "the school code on the form is required",
    "the frase de segurança is shown on the login page",
    "minha vó tem 84 anos e ainda faz crochê",
]
