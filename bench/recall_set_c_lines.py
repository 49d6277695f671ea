"""What is said "now" in ``bench/recall_set_c.py``: a short live exchange that names a subject,
then a follow-up that refers back to it without naming it.

Each English follow-up belongs to a story of set B (``bench/recall_set_b_lines.py``) and takes
that story's evidence turns; its ``{slots}`` are the person's life in set B. Every story has two
wordings: the first for the people of set B's tuning part, the second for the held-out part,
so a rule tuned on one part never saw the sentences of the other. The Portuguese follow-ups
are written for the four Portuguese people of set A (``bench/recall_set.py``), each on one of
their questions (its evidence turns), names as their conversations say them.

Kinds: ``person`` (a pronoun for someone named in the live exchange), ``place`` ("there"),
``thing`` ("it", "that": a thing or an event), ``vague`` (a vague noun phrase: "the present",
"that trip"), and ``none``: a full question of set B or set A after unrelated live talk, to
show what resolution costs a message that needs none.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FOLLOW_UPS", "NONE_STORIES", "PORTUGUESE", "FollowUp", "Spoken"]

#: one live turn: what the user said, what the persona answered
Spoken = tuple[str, str]


@dataclass(frozen=True)
class FollowUp:
    """A follow-up on set B's ``story``: ``worded[0]`` for the tuning part, ``worded[1]`` for
    the held-out part, each a live exchange and the question asked after it."""

    story: str
    kind: str
    worded: tuple[tuple[tuple[Spoken, ...], str], tuple[tuple[Spoken, ...], str]]


def _f(
    story: str,
    kind: str,
    tuning: tuple[tuple[Spoken, ...], str],
    held_out: tuple[tuple[Spoken, ...], str],
) -> FollowUp:
    return FollowUp(story, kind, (tuning, held_out))


FOLLOW_UPS: list[FollowUp] = [
    # -- person: a pronoun for someone just named -------------------------------------------
    _f(
        "partner job",
        "person",
        (
            (("{partner} is asleep on the sofa again, still in her coat", "Poor thing."),),
            "Remind me where she works?",
        ),
        (
            (("{partner} just left for her shift", "I hope it's a quiet one for her."),),
            "Why are her hours so odd again?",
        ),
    ),
    _f(
        "partner allergy",
        "person",
        (
            (("{partner} is cooking for my birthday on Saturday", "That's sweet of her."),),
            "Is there anything she can't eat? I'm doing the shopping",
        ),
        (
            (("I'm taking {partner} out for dinner on Friday", "Nice, anywhere in mind?"),),
            "Which foods does she have to stay away from?",
        ),
    ),
    _f(
        "brother city",
        "person",
        (
            (("{brother} rang this morning and talked for ages", "How is he doing?"),),
            "Where is he living now?",
        ),
        (
            (("I might go and see {brother} in the spring", "He'd love that."),),
            "Which city is he in these days?",
        ),
    ),
    _f(
        "friend abroad",
        "person",
        (
            (("{friend} sent me a parcel with a lovely letter", "What a nice surprise."),),
            "What's she doing for work now?",
        ),
        (
            (("I had a long video call with {friend} tonight", "How is she getting on?"),),
            "Where did she end up working after the move?",
        ),
    ),
    _f(
        "neighbour daughter",
        "person",
        (
            (("{neighbour}'s girl {daughter} is home for the holidays", "Is she well?"),),
            "What is she studying again?",
        ),
        (
            (("Saw {daughter} from next door at the bus stop today", "How is she?"),),
            "Which subject did she go off to do?",
        ),
    ),
    _f(
        "kid interest",
        "person",
        (
            (("It's {kid}'s birthday in three weeks", "How exciting for her."),),
            "What would she love as a present?",
        ),
        (
            (("I'm taking {kid} out on Saturday, just the two of us", "That sounds lovely."),),
            "Where could I take her that she'd really enjoy?",
        ),
    ),
    _f(
        "quote",
        "person",
        (
            (("{friend} came round for dinner last night", "How is she?"),),
            "What was that thing she said that stuck with me?",
        ),
        (
            (("Bumped into {friend} in town and we had a coffee", "Nice. What's her news?"),),
            "Remind me of the advice she once gave me?",
        ),
    ),
    _f(
        "pet",
        "person",
        (
            (("{pet} ate another sock this morning", "Again!"),),
            "What kind of animal is she, remind me?",
        ),
        (
            (("The vet says {pet} needs to lose weight", "Too many socks, maybe."),),
            "Where did we get her from?",
        ),
    ),
    # -- place: "there" ----------------------------------------------------------------------
    _f(
        "trip highlight",
        "place",
        (
            (
                (
                    "{partner} keeps showing everyone our photos from {trip}",
                    "You both looked so happy.",
                ),
            ),
            "What was the best bit of being there?",
        ),
        (
            (("I still dream about {trip}", "It sounded wonderful."),),
            "What did I love most over there?",
        ),
    ),
    _f(
        "restaurant",
        "place",
        (
            (("We might go back to {restaurant} for a birthday", "A good choice."),),
            "What did you say people rave about there?",
        ),
        (
            (("{partner} wants to book {restaurant} again", "Lovely."),),
            "What's the dish to order there, according to you?",
        ),
    ),
    _f(
        "hometown",
        "place",
        (
            (("Mum sent me old photos from {hometown}", "Where you grew up! What are they of?"),),
            "What did we live above there?",
        ),
        (
            (("I'm driving up to {hometown} next weekend", "Going back to your roots?"),),
            "What was the business under our flat there?",
        ),
    ),
    _f(
        "flying",
        "place",
        (
            (("I've been invited to speak at a conference in {friend_city}", "Congratulations!"),),
            "Would I be happy flying there?",
        ),
        (
            (("{brother} wants me to visit him in {brother_city}", "That's quite a way."),),
            "How would I feel about getting there by plane?",
        ),
    ),
    _f(
        "hobby",
        "place",
        (
            (("It's Wednesday, so I'm off to the room above the library soon", "Enjoy it!"),),
            "Remind me what I'm learning there?",
        ),
        (
            (("My Wednesday evening teacher is retiring", "Oh, that's a shame."),),
            "What is it I go there to learn?",
        ),
    ),
    # -- thing: "it", "that": a thing or an event --------------------------------------------
    _f(
        "house viewing",
        "thing",
        (
            (("I drove down {street} today", "Where you saw that house?"),),
            "What was the catch with it again?",
        ),
        (
            (("The house on {street} is back on the market", "Are you tempted?"),),
            "What put me off it the first time?",
        ),
    ),
    _f(
        "tooth",
        "thing",
        (
            (("The dentist fitted the crown today", "How does it feel?"),),
            "What was wrong in the first place that I needed it?",
        ),
        (
            (("Back at the dentist tomorrow for the crown", "Good luck!"),),
            "Why did I need that again?",
        ),
    ),
    _f(
        "resigned",
        "thing",
        (
            (("My leaving do from the old job was lovely", "What a nice send-off."),),
            "When did I tell them I was going?",
        ),
        (
            (("Found a draft of my notice letter in a drawer", "Oh, that one!"),),
            "When did I hand it in?",
        ),
    ),
    _f(
        "new sport",
        "thing",
        (
            (("My {new_sport} club has a match on Sunday", "Are you playing?"),),
            "When did I start it?",
        ),
        (
            (("I'm so sore from {new_sport} training", "It gets easier, I promise."),),
            "Which month did I take that up?",
        ),
    ),
    _f(
        "school play",
        "thing",
        (
            (("{kid} wants a part in the next school play", "After last time, no surprise."),),
            "When was the last one?",
        ),
        (
            (("{kid} keeps asking to be on stage again", "A natural performer."),),
            "When was her last performance?",
        ),
    ),
    _f(
        "book recommended",
        "thing",
        (
            (("{partner} picked up {book} at the library", "Good choice."),),
            "Did I ever finish it?",
        ),
        (
            (("Someone on the train was reading {book}", "Small world."),),
            "Was that the one you told me to read, and did I?",
        ),
    ),
    _f(
        "move then cat",
        "thing",
        (
            (("The kitten from {friend}'s litter is huge now", "They grow so fast."),),
            "Did she arrive before or after we moved?",
        ),
        (
            (("{friend}'s cat has had another litter", "More kittens!"),),
            "Did ours come before or after we changed address?",
        ),
    ),
    _f(
        "outdoors",
        "thing",
        (
            (("{friend} has invited me to the hills for the weekend", "Oh, nice."),),
            "Would I enjoy it?",
        ),
        (
            (("There's a walking weekend in the Dales next month", "Fancy it?"),),
            "Is that my kind of thing?",
        ),
    ),
    _f(
        "diet",
        "thing",
        (
            (("{partner} wants to book a steakhouse for my birthday", "That's thoughtful."),),
            "Would that suit me?",
        ),
        (
            (("{brother} is planning a big barbecue for my birthday", "Fun!"),),
            "Is it a good idea for me?",
        ),
    ),
    # -- vague: a noun phrase that names nothing ---------------------------------------------
    _f(
        "mum gift",
        "vague",
        (
            (("{mum} is still talking about her seventieth", "It sounds like a lovely day."),),
            "What was the present in the end?",
        ),
        (
            (("{mum} rang to say thank you again for her birthday", "She sounded so happy."),),
            "Remind me what the gift was?",
        ),
    ),
    _f(
        "knee",
        "vague",
        (
            (("I played five-a-side again last night", "How did it go?"),),
            "Has the injury fully healed now?",
        ),
        (
            (("Thinking about going back to five-a-side", "Are you ready for it?"),),
            "Did that injury heal in the end?",
        ),
    ),
    _f(
        "before the trip",
        "vague",
        (
            (("Found my passport photo from just before {trip}", "How do you look in it?"),),
            "What did I change about my looks before the holiday?",
        ),
        (
            (("Someone asked me about {trip} today", "Did it bring it all back?"),),
            "What did I do to my appearance just before that trip?",
        ),
    ),
]
"""English follow-ups on set B's stories."""

#: the stories whose own set B question is asked after unrelated live talk (kind ``none``)
NONE_STORIES = ("job", "commute", "tooth", "hometown", "new sport", "friend abroad", "pet")

#: the Portuguese follow-ups: (set A person, the question of theirs, kind, live, follow-up)
PORTUGUESE: list[tuple[str, str, str, tuple[Spoken, ...], str]] = [
    # joana and rita: tuning; miguel and tiago: held-out
    (
        "joana",
        "joana-q03",
        "person",
        (("a Rui ligou-me ontem à noite", "Como está ela?"),),
        "e o que é que ela faz mesmo?",
    ),
    (
        "joana",
        "joana-q00",
        "person",
        (("o Farrusco roeu-me os chinelos", "Ai, que maroto!"),),
        "de que raça é que ele é?",
    ),
    (
        "joana",
        "joana-q21",
        "place",
        (("estive a ver as fotografias de Salamanca", "Que saudades!"),),
        "quando é que fomos lá?",
    ),
    (
        "joana",
        "joana-q24",
        "person",
        (("a mãe do Pedro veio cá jantar", "Que simpático!"),),
        "o que é que lhe aconteceu?",
    ),
    (
        "joana",
        "joana-q17",
        "thing",
        (("a Beatriz quer ler Os Maias", "Boa escolha."),),
        "quando é que eu o acabei?",
    ),
    (
        "joana",
        "joana-q12",
        "none",
        (("hoje choveu o dia todo", "Que chatice, ficaste em casa?"),),
        "que desporto pratico com os colegas?",
    ),
    (
        "rita",
        "rita-q08",
        "person",
        (("falei com a Inês ao telefone", "Como está ela?"),),
        "qual é mesmo o trabalho dela?",
    ),
    (
        "rita",
        "rita-q16",
        "person",
        (("o Farrusco já corre outra vez", "Que alegria!"),),
        "quando é que ele foi operado?",
    ),
    (
        "rita",
        "rita-q14",
        "place",
        (("a Carla vai à Madeira em junho", "Que sorte!"),),
        "quando é que eu lá fui?",
    ),
    (
        "rita",
        "rita-q27",
        "place",
        (("fui outra vez a casa dos meus pais", "Como estão eles?"),),
        "o que é que o meu pai me mostrou lá da última vez?",
    ),
    (
        "rita",
        "rita-q21",
        "vague",
        (("a Carla quer ir à Serra da Arrábida", "Boa ideia!"),),
        "quando é que eu fiz essa caminhada?",
    ),
    (
        "rita",
        "rita-q10",
        "none",
        (("estou cansadíssima, dormi mal", "Deita-te cedo hoje."),),
        "qual é o meu prato preferido?",
    ),
    (
        "miguel",
        "miguel-q14",
        "person",
        (("a João vem cá passar o fim de semana", "Que bom!"),),
        "em que é que ela trabalha mesmo?",
    ),
    (
        "miguel",
        "miguel-q06",
        "person",
        (("o Tareco fugiu para o quintal do vizinho", "Já voltou?"),),
        "que raça é ele, lembra-me?",
    ),
    (
        "miguel",
        "miguel-q15",
        "place",
        (("ainda penso muito nos Açores", "Foi uma viagem boa!"),),
        "quando é que lá fomos?",
    ),
    (
        "miguel",
        "miguel-q22",
        "thing",
        (("apetece-me voltar à Peneda-Gerês", "Outra caminhada?"),),
        "quando é que fizemos aquilo?",
    ),
    (
        "miguel",
        "miguel-q26",
        "person",
        (("a Carla convidou-me para jantar outra vez", "Boa!"),),
        "onde é que jantei com ela em setembro?",
    ),
    (
        "miguel",
        "miguel-q00",
        "none",
        (("o trânsito hoje estava horrível", "À hora de ponta?"),),
        "qual é o meu prato preferido?",
    ),
    (
        "tiago",
        "tiago-q12",
        "person",
        (("a Marta vem cá a casa no domingo", "A tua irmã?"),),
        "o que é que ela faz mesmo?",
    ),
    (
        "tiago",
        "tiago-q17",
        "person",
        (("a Nina já não coxeia", "Que bom!"),),
        "quando é que ela foi operada?",
    ),
    (
        "tiago",
        "tiago-q14",
        "thing",
        (("o Pedro anda a ler o Livro do Desassossego", "Que livro."),),
        "quando é que eu o acabei?",
    ),
    (
        "tiago",
        "tiago-q20",
        "vague",
        (("os meus joelhos ainda se lembram da Arrábida", "Foi duro!"),),
        "quando é que fizemos essa caminhada?",
    ),
    (
        "tiago",
        "tiago-q03",
        "none",
        (("o jantar de hoje queimou-se", "E comeram o quê?"),),
        "que desporto pratico com os colegas?",
    ),
]
