"""What the people of ``bench/recall_set.py`` say, in English and Portuguese: facts, events,
links told sessions apart, habits that change, and the small talk around them."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["EN", "PT", "Change", "Event", "Fact", "Lines", "Link", "Repeat"]


@dataclass(frozen=True)
class Fact:
    """Something told once, and asked for (``asked``; ``paraphrase`` in other words or, for an
    event, with the month it happened in: ``{month}``)."""

    said: str
    reply: str
    asked: str
    paraphrase: str = ""


Event = Fact


@dataclass(frozen=True)
class Link:
    """Two things told sessions apart: a link between them, or a habit and how it changed
    (then the evidence is the second)."""

    said: str
    reply: str
    said2: str
    reply2: str
    asked: str


Change = Link


@dataclass(frozen=True)
class Repeat:
    """Something done again and again ({detail} differs each time); asked for one month's."""

    said: str
    reply: str
    asked: str
    details: list[str]


@dataclass(frozen=True)
class Lines:
    months: list[str]
    facts: list[Fact]
    events: list[Event]
    links: list[Link]
    changes: list[Change]
    openers: list[tuple[str, str]]
    chatter: list[tuple[str, str]]
    closers: list[tuple[str, str]]
    repeats: list[Repeat]
    life: Callable[[random.Random], dict[str, str]] = field(compare=False)


def _pick(rng: random.Random, **pools: list[str]) -> dict[str, str]:
    return {key: rng.choice(values) for key, values in pools.items()}


def _en_life(rng: random.Random) -> dict[str, str]:
    names = "Ana Bruno Carla Diego Elena Filipe Grace Hugo Irene Jonas Kate Liam Maya Noah Olga"
    people = rng.sample(names.split(), 6)
    slots = _pick(
        rng,
        sister_city=["Leeds", "Bristol", "Glasgow", "Dublin", "Cardiff", "York"],
        sister_job=["pharmacist", "paramedic", "civil engineer", "vet", "midwife"],
        pet_kind=["beagle", "border collie", "tabby cat", "greyhound", "dachshund"],
        pet=["Biscuit", "Pepper", "Miso", "Juno", "Pickle", "Ziggy"],
        job=["data analyst", "primary school teacher", "nurse", "architect", "chef"],
        employer=["a logistics company", "the city council", "a small design studio"],
        instrument=["cello", "violin", "viola", "double bass"],
        trip=["Sintra", "Porto", "Seville", "Krakow", "Edinburgh", "Bruges"],
        trip2=["Lake District", "Snowdonia", "Peak District", "Cairngorms"],
        dish=["mushroom risotto", "lamb tagine", "pad thai", "fish pie", "shakshuka"],
        allergy=["peanuts", "shellfish", "kiwi", "sesame"],
        school=["the Royal Conservatory", "Leeds College of Music", "the art school in Glasgow"],
        car=["an old blue Corsa", "a red Fiesta", "a grey Yaris"],
        sport=["bouldering", "five-a-side football", "open water swimming", "squash"],
        book=["Middlemarch", "The Remains of the Day", "Piranesi", "Small Things Like These"],
    )
    keys = ("sister", "partner", "friend", "neighbour", "kid", "boss")
    return {**slots, **dict(zip(keys, people, strict=True))}


EN = Lines(
    months=(
        "January February March April May June July August September October November December"
    ).split(),
    facts=[
        Fact(
            "my sister {sister} lives in {sister_city} now, she works as a {sister_job} there",
            "Oh nice, how's she finding {sister_city}?",
            "what does {sister} do for work?",
            "what's my sibling's profession?",
        ),
        Fact(
            "we adopted a {pet_kind} from the shelter, her name is {pet}",
            "{pet}! Love that name. How is she settling in?",
            "what kind of dog or cat is {pet}?",
            "which breed did we get from the rescue?",
        ),
        Fact(
            "I work as a {job} at {employer}, been there four years",
            "Four years, that's a good stretch. Do you still enjoy it?",
            "where do I work?",
            "what's my occupation?",
        ),
        Fact(
            "{partner} is allergic to {allergy} so we never keep them in the house",
            "Good to know, I'll keep that in mind for recipe ideas.",
            "what is {partner} allergic to?",
            "which food could make {partner} ill?",
        ),
        Fact(
            "started {instrument} lessons on Thursdays with a teacher from the orchestra",
            "That's brilliant! Is it hard on the fingers at first?",
            "what instrument am I learning?",
            "which string instrument am I studying?",
        ),
        Fact(
            "my car is {car}, it's ancient but it starts every time",
            "Ha, the reliable old ones are the best.",
            "what car do I drive?",
        ),
        Fact(
            "{friend}'s birthday is on the 12th of May, remind me to get her something",
            "I'll remember: {friend}, 12 May.",
            "when is {friend}'s birthday?",
            "what date does {friend} turn a year older?",
        ),
        Fact(
            "my favourite thing to cook is {dish}, I make it most Sundays",
            "Sounds delicious. Any secret ingredient?",
            "what's my favourite dish to cook?",
            "what do I usually make for Sunday dinner?",
        ),
        Fact(
            "I do {sport} twice a week with people from work",
            "Nice way to stay fit and social at the same time.",
            "what sport do I play with my colleagues?",
        ),
        Fact(
            "my boss {boss} is moving to the Singapore office next year",
            "Big change! Do you know who will replace {boss}?",
            "where is {boss} moving to?",
            "which city is my manager relocating to?",
        ),
    ],
    events=[
        Event(
            "went to {trip} for the long weekend, the trains were a nightmare but the food!",
            "Worth it then! What was the best thing you ate in {trip}?",
            "when did I go to {trip}?",
            "where did I travel in {month}?",
        ),
        Event(
            "we did a three day hike in the {trip2}, my knees are still complaining",
            "Three days is serious! Did the weather hold?",
            "when was the hiking trip in the {trip2}?",
            "what did I do in the hills in {month}?",
        ),
        Event(
            "had my job interview at the hospital trust today, think it went ok??",
            "Fingers crossed! What did they ask you?",
            "when did I have the interview at the hospital trust?",
        ),
        Event(
            "finally finished reading {book}, cried at the end like an idiot",
            "Not an idiot at all, that ending gets everyone.",
            "when did I finish {book}?",
            "which novel did I finish in {month}?",
        ),
        Event(
            "{pet} had surgery on her paw this morning, vet says she'll be fine",
            "Poor {pet}, glad it went well. Give her a treat from me.",
            "when did {pet} have the operation?",
        ),
        Event(
            "ran my first 10k race yesterday, 58 minutes!!",
            "Under an hour on your first 10k, congratulations!",
            "when did I run my first 10k?",
            "what race did I do in {month}?",
        ),
        Event(
            "we moved the whole flat over the weekend, boxes everywhere",
            "Moving is exhausting. Which room are you unpacking first?",
            "when did we move flat?",
        ),
    ],
    links=[
        Link(
            "our neighbour {neighbour} has a daughter called {kid}, she plays piano all day",
            "At least it's piano and not drums!",
            "{kid} got a place at {school}, the whole street is proud",
            "That's wonderful news for her.",
            "where does my neighbour's daughter study?",
        ),
        Link(
            "{friend} just started dating a guy called Tom who builds boats",
            "Boats! That's an unusual job.",
            "Tom and his boat business are moving to Falmouth",
            "Falmouth is beautiful, good place for boats.",
            "where is my friend's boyfriend moving his business?",
        ),
        Link(
            "{partner}'s mum is called Rosa, she's lovely but talks nonstop",
            "Ha, some people just have a lot to say.",
            "Rosa broke her wrist falling off a ladder, she's ok though",
            "Ouch! Wishing her a quick recovery.",
            "what happened to my partner's mother?",
        ),
    ],
    changes=[
        Change(
            "I only drink black coffee in the morning, can't function otherwise",
            "Classic. Strong or filter?",
            "switched to green tea in the mornings, coffee was wrecking my sleep",
            "Good call, sleep matters more.",
            "what do I drink in the morning these days?",
        ),
        Change(
            "I'm vegetarian, have been since uni",
            "Noted! Lots of great recipes out there.",
            "I've started eating fish again, the doctor said I need more omega 3",
            "Makes sense if the doctor recommends it.",
            "do I eat fish now?",
        ),
        Change(
            "I cycle to work every day, it's only 20 minutes",
            "That's a nice commute.",
            "I take the bus to work now, the bike got stolen outside the station",
            "Oh no, that's so annoying! Sorry about the bike.",
            "how do I get to work now?",
        ),
    ],
    openers=[
        ("hey", "Hey! How's your day going?"),
        ("hi, long day", "Hi! Want to tell me about it?"),
        ("morning", "Good morning! Sleep well?"),
        ("evening!", "Evening! What's new?"),
        ("I'm back", "Welcome back! What's on your mind?"),
    ],
    chatter=[
        ("{sister} called, she sounded tired", "Is everything alright with her?"),
        ("the weather in {sister_city} is apparently awful this week", "Typical, isn't it."),
        ("{pet} stole a sock again lol", "Ha! A sock thief in the family."),
        ("work was so busy today", "Sounds draining. Did you get a break?"),
        ("{partner} made pancakes this morning", "What a nice start to the day."),
        ("can't decide what to have for dinner", "Something quick? Pasta never fails."),
        ("I should really call my mum more", "She'd probably love to hear from you."),
        ("{friend} wants to go to a concert next month", "Who's playing?"),
        ("my back hurts from sitting all day", "Maybe try a short walk every hour?"),
        ("watched a documentary about octopuses", "They're so clever, right?"),
        ("{boss} scheduled another meeting at 5pm", "Meetings at 5 should be illegal."),
        ("need to renew my passport at some point", "Better do it before any trip."),
        ("the neighbours are having a party again", "Earplugs time?"),
        ("{neighbour} waved at me from her balcony", "Friendly street you live on."),
        ("took {pet} to the park, she made a new friend", "Dog park friendships are the best."),
        ("I think I'm coming down with a cold", "Rest and lots of tea then."),
        ("{sister} sent photos of her new flat", "How does it look?"),
        ("bought new running shoes", "Exciting! Which ones did you get?"),
        ("traffic was horrible", "Ugh, sorry. At least you're home now."),
        ("my plants are dying again", "Too much water maybe?"),
        ("{partner} and I watched a film", "Any good?"),
        ("thinking about learning Spanish", "That would be fun, lots of apps for it."),
        ("the train was cancelled twice this week", "That's so frustrating."),
        ("{friend} is coming over on Saturday", "Nice, any plans?"),
        ("had a weird dream about the sea", "Dreams are strange. Were you swimming?"),
        ("my laptop keeps freezing", "Maybe it needs a restart and an update."),
        ("made soup with leftover veg", "Very resourceful!"),
        ("{kid} was practising again, I could hear it all evening", "Dedicated kid!"),
    ],
    closers=[
        ("ok I'm off to bed", "Sleep well! Talk soon."),
        ("thanks for listening", "Always. Take care."),
        ("gotta go, dinner's ready", "Enjoy your dinner!"),
        ("bye for now", "Bye! Have a good evening."),
    ],
    repeats=[
        Repeat(
            "dinner with {friend} at {detail} tonight, so good",
            "Lovely! What did you have?",
            "where did I have dinner with {friend} in {month}?",
            ["the Thai place on King Street", "that new ramen bar", "Luigi's", "a Lebanese grill"],
        ),
        Repeat(
            "went to the cinema with {partner} to see {detail}",
            "Ooh, was it any good?",
            "which film did I see with {partner} in {month}?",
            ["Dune Part Two", "Past Lives", "Anatomy of a Fall", "Perfect Days"],
        ),
        Repeat(
            "visited my parents, dad showed me his {detail}",
            "Aw, how are they doing?",
            "what did my dad show me when I visited in {month}?",
            ["new vegetable patch", "restored motorbike", "bird feeder", "model railway"],
        ),
    ],
    life=_en_life,
)


def _pt_life(rng: random.Random) -> dict[str, str]:
    names = "Inês Rui Catarina Duarte Marta Nuno Sofia Pedro Beatriz João Leonor Tomás Carla"
    people = rng.sample(names.split(), 6)
    slots = _pick(
        rng,
        sister_city=["Braga", "Coimbra", "Faro", "Évora", "Viseu", "Aveiro"],
        sister_job=["farmacêutica", "enfermeira", "engenheira civil", "veterinária"],
        pet_kind=["rafeiro alentejano", "gato siamês", "podengo", "labrador"],
        pet=["Tareco", "Pipoca", "Farrusco", "Nina", "Bolacha"],
        job=["contabilista", "professora de matemática", "enfermeira", "arquiteta"],
        employer=["uma empresa de transportes", "na câmara municipal", "num atelier pequeno"],
        instrument=["violoncelo", "violino", "guitarra portuguesa", "contrabaixo"],
        trip=["Sintra", "Madeira", "Gerês", "Sevilha", "Salamanca", "Açores"],
        trip2=["Serra da Estrela", "Peneda-Gerês", "Serra da Arrábida"],
        dish=["arroz de pato", "bacalhau com natas", "caldeirada", "feijoada"],
        allergy=["amendoins", "marisco", "kiwi", "sésamo"],
        school=["no conservatório do Porto", "na escola de música de Lisboa"],
        car=["um Clio velho azul", "um Punto vermelho", "um Corsa cinzento"],
        sport=["escalada", "futsal", "natação", "padel"],
        book=["Ensaio sobre a Cegueira", "Os Maias", "Livro do Desassossego"],
    )
    keys = ("sister", "partner", "friend", "neighbour", "kid", "boss")
    return {**slots, **dict(zip(keys, people, strict=True))}


PT = Lines(
    months=(
        "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro"
    ).split(),
    facts=[
        Fact(
            "a minha irmã {sister} mudou-se para {sister_city}, trabalha lá como {sister_job}",
            "Que bom! E ela está a gostar de {sister_city}?",
            "qual é a profissão da {sister}?",
            "em que é que a minha irmã trabalha?",
        ),
        Fact(
            "adotámos um {pet_kind} do canil, chama-se {pet}",
            "{pet}, que nome giro! Já se habituou à casa?",
            "que raça é o {pet}?",
            "que animal fomos buscar ao canil?",
        ),
        Fact(
            "trabalho como {job} {employer} há quatro anos",
            "Quatro anos já é bastante. Ainda gostas?",
            "onde é que eu trabalho?",
            "qual é a minha profissão?",
        ),
        Fact(
            "o {partner} é alérgico a {allergy}, nunca há disso cá em casa",
            "Boa, vou ter isso em conta nas receitas.",
            "a que é que o {partner} é alérgico?",
            "que comida faz mal ao {partner}?",
        ),
        Fact(
            "comecei aulas de {instrument} às quintas com um professor da orquestra",
            "Que máximo! Custa muito no início?",
            "que instrumento estou a aprender?",
            "que instrumento de cordas ando a estudar?",
        ),
        Fact(
            "o meu carro é {car}, é velhinho mas nunca falha",
            "Os velhinhos são os mais fiéis.",
            "que carro é que eu tenho?",
        ),
        Fact(
            "o aniversário da {friend} é a 12 de maio, lembra-me de lhe comprar uma prenda",
            "Fica anotado: {friend}, 12 de maio.",
            "quando faz anos a {friend}?",
            "em que dia celebra a {friend}?",
        ),
        Fact(
            "o meu prato preferido para cozinhar é {dish}, faço quase todos os domingos",
            "Que delícia. Tens algum segredo?",
            "qual é o meu prato preferido?",
            "o que costumo fazer ao jantar de domingo?",
        ),
        Fact(
            "faço {sport} duas vezes por semana com o pessoal do trabalho",
            "Boa maneira de fazer exercício e conviver.",
            "que desporto pratico com os colegas?",
        ),
    ],
    events=[
        Event(
            "fomos a {trip} no fim de semana prolongado, comemos imenso",
            "Que inveja! Qual foi a melhor coisa que comeste em {trip}?",
            "quando é que fui a {trip}?",
            "onde fui passear em {month}?",
        ),
        Event(
            "fizemos três dias de caminhada na {trip2}, ainda me doem os joelhos",
            "Três dias é obra! O tempo ajudou?",
            "quando foi a caminhada na {trip2}?",
            "o que fiz na serra em {month}?",
        ),
        Event(
            "acabei de ler {book}, chorei no fim",
            "Não admira, o final é forte.",
            "quando é que acabei {book}?",
            "que livro terminei em {month}?",
        ),
        Event(
            "o {pet} foi operado à pata hoje de manhã, o veterinário diz que vai ficar bem",
            "Coitado do {pet}, ainda bem que correu bem.",
            "quando é que o {pet} foi operado?",
        ),
        Event(
            "corri a minha primeira prova de 10 km ontem, 58 minutos!!",
            "Menos de uma hora na primeira, parabéns!",
            "quando corri os meus primeiros 10 km?",
            "que prova fiz em {month}?",
        ),
        Event(
            "mudámos de casa no fim de semana, caixas por todo o lado",
            "Mudanças são cansativas. Qual a primeira divisão a arrumar?",
            "quando é que mudámos de casa?",
        ),
    ],
    links=[
        Link(
            "a nossa vizinha {neighbour} tem uma filha chamada {kid}, toca piano o dia todo",
            "Ao menos é piano e não bateria!",
            "a {kid} entrou {school}, a rua inteira está orgulhosa",
            "Que notícia tão boa para ela.",
            "onde estuda a filha da minha vizinha?",
        ),
        Link(
            "a mãe do {partner} chama-se Rosa, é um amor mas fala pelos cotovelos",
            "Há pessoas que têm sempre muito para contar.",
            "a Rosa partiu o pulso ao cair de um escadote, mas está bem",
            "Ai! Desejo-lhe as melhoras.",
            "o que aconteceu à mãe do meu companheiro?",
        ),
    ],
    changes=[
        Change(
            "de manhã só bebo café, sem isso não funciono",
            "Clássico. Expresso ou de filtro?",
            "passei a beber chá verde de manhã, o café estava a dar cabo do meu sono",
            "Boa decisão, dormir é importante.",
            "o que bebo de manhã agora?",
        ),
        Change(
            "sou vegetariana desde a faculdade",
            "Anotado! Há imensas receitas boas.",
            "voltei a comer peixe, a médica disse que preciso de ómega 3",
            "Faz sentido se a médica recomenda.",
            "agora como peixe?",
        ),
        Change(
            "vou de bicicleta para o trabalho todos os dias, são só 20 minutos",
            "Que bom trajeto.",
            "agora vou de autocarro para o trabalho, roubaram-me a bicicleta à porta da estação",
            "Que chatice! Lamento a bicicleta.",
            "como vou para o trabalho agora?",
        ),
    ],
    openers=[
        ("olá", "Olá! Como está a correr o dia?"),
        ("boas, dia longo", "Olá! Queres contar?"),
        ("bom dia", "Bom dia! Dormiste bem?"),
        ("voltei", "Bem-vinda de volta! O que há de novo?"),
    ],
    chatter=[
        ("a {sister} ligou, parecia cansada", "Está tudo bem com ela?"),
        ("em {sister_city} está a chover imenso esta semana", "Típico."),
        ("o {pet} roubou outra meia", "Ah! Um ladrão de meias cá em casa."),
        ("o trabalho hoje foi uma loucura", "Parece cansativo. Conseguiste fazer uma pausa?"),
        ("o {partner} fez panquecas ao pequeno-almoço", "Que bom começo de dia."),
        ("não sei o que fazer para o jantar", "Algo rápido? Massa nunca falha."),
        ("devia ligar mais à minha mãe", "Ela deve gostar de ouvir a tua voz."),
        ("a {friend} quer ir a um concerto no mês que vem", "Quem vai tocar?"),
        ("dói-me as costas de estar sentada o dia todo", "Experimenta caminhar um pouco."),
        ("vi um documentário sobre polvos", "São tão inteligentes, não são?"),
        ("o {boss} marcou outra reunião às 17h", "Reuniões às 17h deviam ser proibidas."),
        ("tenho de renovar o cartão de cidadão", "Melhor tratar disso antes de viajar."),
        ("os vizinhos estão outra vez em festa", "Tampões para os ouvidos?"),
        ("a {neighbour} acenou-me da varanda", "A tua rua é simpática."),
        ("levei o {pet} ao parque, fez um amigo novo", "As amizades do parque são as melhores."),
        ("acho que estou a ficar constipada", "Descansa e bebe muito chá."),
        ("comprei ténis de corrida novos", "Que bom! Quais escolheste?"),
        ("o trânsito estava horrível", "Que chatice. Ao menos já estás em casa."),
        ("as minhas plantas estão a morrer outra vez", "Talvez seja água a mais?"),
        ("eu e o {partner} vimos um filme", "Era bom?"),
        ("o comboio foi cancelado duas vezes esta semana", "Que frustração."),
        ("a {friend} vem cá no sábado", "Boa, têm planos?"),
        ("o portátil está sempre a bloquear", "Talvez precise de uma atualização."),
        ("fiz sopa com os restos dos legumes", "Muito bem aproveitado!"),
        ("a {kid} esteve a tocar outra vez, ouvi a noite toda", "Que dedicação!"),
    ],
    closers=[
        ("vou dormir", "Dorme bem! Até breve."),
        ("obrigada por ouvires", "Sempre. Cuida-te."),
        ("tenho de ir, o jantar está pronto", "Bom jantar!"),
        ("até logo", "Até logo! Boa noite."),
    ],
    repeats=[
        Repeat(
            "jantar com a {friend} {detail} hoje, tão bom",
            "Que bom! O que comeram?",
            "onde jantei com a {friend} em {month}?",
            ["na tasca do Zé", "num tailandês novo", "no italiano da esquina", "numa marisqueira"],
        ),
        Repeat(
            "fui ao cinema com o {partner} ver {detail}",
            "E então, gostaram?",
            "que filme vi com o {partner} em {month}?",
            ["o Dune", "o Vidas Passadas", "a Anatomia de uma Queda", "o Dias Perfeitos"],
        ),
        Repeat(
            "fui visitar os meus pais, o meu pai mostrou-me {detail}",
            "Que querido! Como estão eles?",
            "o que me mostrou o meu pai quando os visitei em {month}?",
            ["a horta nova", "a mota restaurada", "o comedouro dos pássaros", "o comboio"],
        ),
    ],
    life=_pt_life,
)
