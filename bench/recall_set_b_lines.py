"""What the people of ``bench/recall_set_b.py`` say: stories told in one sentence of a long
message, the questions asked about them in other words, and the small talk around them.

A story's ``told`` turns are the ones that answer; a ``{fact}`` sentence is wrapped by the
generator in small talk of the same person's life. ``decoys`` talk about the same things
without the answer. ``who`` is ``me`` (the account's owner), ``partner`` (the second person
who sometimes writes from the same account and talks about themselves) or ``persona`` (the
answer is in what the assistant said)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = ["CHATTER", "REPLIES", "STORIES", "Story", "Told", "life"]


@dataclass(frozen=True)
class Told:
    """One turn: the sentence that carries the fact (one wording of ``said`` is picked), and
    the assistant's reply."""

    said: tuple[str, ...]
    reply: tuple[str, ...]
    who: str = "me"


@dataclass(frozen=True)
class Story:
    """Something told (in one turn, or in two sessions apart), and one of ``asked``."""

    kind: str
    told: tuple[Told, ...]
    asked: tuple[str, ...]
    decoys: tuple[Told, ...] = ()
    #: ``apart``: each told turn in its own session, in order; ``same``: one session
    gap: str = "apart"
    name: str = field(default="", compare=False)


def life(rng: random.Random) -> dict[str, str]:
    """One person's world: the people around them, places, things."""
    women = rng.sample("Priya Helen Ingrid Rosa Bea Nadia Maeve Lucia".split(), 4)
    men = rng.sample("Tomasz Marcus Callum Yusuf Declan Owen".split(), 2)
    pick = {
        "job": [
            "planning bus timetables for the regional transport authority",
            "fixing payroll software for a bank that still runs on code from 1994",
            "rigging stage lights at the theatre down by the quay",
            "checking the safety of bridges for the county",
            "writing grant applications for a small wildlife charity",
        ],
        "partner_work": [
            "the parcel sorting depot out by the ring road",
            "the children's ward at the Royal Infirmary",
            "the bakery on Mill Street, the four a.m. shift",
            "the control room of the harbour",
        ],
        "pet_kind": ["lurcher", "ginger tom", "three-legged terrier", "whippet"],
        "pet": ["Mabel", "Tofu", "Brisket", "Clementine", "Wasabi"],
        "allergen": ["prawns and crab", "walnuts and almonds", "sesame seeds"],
        "brother_city": ["Aberdeen", "Valencia", "Gdansk", "Halifax in Nova Scotia", "Cork"],
        "hobby": [
            "throw pots on a wheel",
            "play the bagpipes",
            "draw people from life",
            "read and write Japanese",
        ],
        "tooth": ["a cracked molar", "an abscess under a wisdom tooth", "a filling that fell out"],
        "ride": ["a second-hand cargo bike", "an electric scooter", "a folding bike"],
        "hometown": ["Whitby", "a village outside Limerick", "Sunderland", "Bideford"],
        "shop": ["fish and chip shop", "launderette", "hardware shop", "newsagent"],
        "season": ["late autumn", "the very start of spring", "midwinter"],
        "friend_city": ["Rotterdam", "Lisbon", "Montreal", "Tallinn"],
        "friend_work": [
            "a start-up that makes hearing aids",
            "the natural history museum, in the insect department",
            "a ferry company, in their booking office",
        ],
        "subject": ["marine biology", "architecture", "veterinary medicine", "Mandarin"],
        "uni_city": ["St Andrews", "Bangor", "Exeter", "Durham"],
        "gift": [
            "hand-thrown blue teapot from the Saturday market",
            "weekend of watercolour classes in the Dales",
            "framed map of the town where she was born",
        ],
        "trip": ["Crete", "Madeira", "Sicily", "Slovenia"],
        "highlight": [
            "swimming in a cove with nobody else around at dawn",
            "a fisherman who grilled us sardines on his boat",
            "the night the whole village danced in the square",
        ],
        "restaurant": ["Ottoline's", "The Drowned Lantern", "Casa Pereira", "Number Nine"],
        "restaurant_dish": ["slow-cooked lamb", "smoked haddock chowder", "tiny custard tarts"],
        "book": ["The Overstory", "Stoner", "A Gentleman in Moscow", "The Sea, the Sea"],
        "street": ["Alder Road", "Quarry Lane", "Temple Street", "Ferry Row"],
        "house_flaw": ["a kitchen the size of a cupboard", "damp all along the back wall"],
        "new_sport": ["rowing", "fencing", "roller derby", "ice hockey"],
        "quote": [
            "you don't have to be good at something to enjoy it",
            "say yes to the things that scare you a little",
            "a tidy desk is the sign of an empty drawer",
        ],
        "kid_obsession": ["dinosaurs", "trains and timetables", "the planets", "octopuses"],
        "diet": [
            "stopped eating meat back in the new year",
            "went fully vegan after a documentary",
        ],
        "shoes": ["a pair of trail running shoes", "proper walking boots", "climbing shoes"],
    }
    slots = {key: rng.choice(values) for key, values in pick.items()}
    people = dict(zip(("partner", "friend", "daughter", "kid"), women, strict=True))
    people.update(zip(("brother", "neighbour"), men, strict=True))
    return {**slots, **people, "mum": "Mum"}


def _t(*said: str, reply: tuple[str, ...] = ("Good to hear.",), who: str = "me") -> Told:
    return Told(tuple(said), reply, who)


STORIES: list[Story] = [
    # -- single: one fact in a long message, asked in other words --------------------------
    Story(
        "single",
        (
            _t(
                "Most of my days go on {job}, and nobody ever believes it's interesting",
                "Honestly the day job is {job}, so my brain is mush by six",
                reply=("That sounds more interesting than you let on.",),
            ),
        ),
        ("What do I do for a living?", "How do I earn my money?"),
        name="job",
    ),
    Story(
        "single",
        (
            _t(
                "In the middle of all that we came home with a {pet_kind} from the rescue "
                "centre, she's called {pet}",
                "The big news is the {pet_kind} we picked up from the shelter, {pet}, who has "
                "already eaten a sock",
                reply=("{pet}! Send a photo when she's settled.",),
            ),
        ),
        ("What animal joined our household?", "Which creature did we take in, and its name?"),
        decoys=(
            _t(
                "{friend} keeps sending me videos of animals from the rescue centre, it's a trap",
                reply=("It's a very effective trap.",),
            ),
        ),
        name="pet",
    ),
    Story(
        "single",
        (
            _t(
                "I had to leave out the {allergen}, they make my throat swell up",
                "Just so you know I can't go near {allergen}, I end up in hospital",
                reply=("Noted, I'll steer clear of those in anything I suggest.",),
                who="partner",
            ),
        ),
        ("Is there anything {partner} mustn't eat?", "What food is dangerous for {partner}?"),
        name="partner allergy",
    ),
    Story(
        "single",
        (
            _t(
                "I'm on nights at {partner_work} this month so I'm wide awake at this hour",
                "I've just got back from a night at {partner_work}, twelve hours on my feet",
                reply=("That's a hard rhythm. Try to get some daylight when you wake.",),
                who="partner",
            ),
        ),
        ("Where does {partner} work?", "Why does {partner} keep such strange hours?"),
        name="partner job",
    ),
    Story(
        "single",
        (
            _t(
                "{brother}'s new flat in {brother_city} looks right over the harbour and he "
                "finally unpacked the last box",
                "My brother {brother} sounded happy, {brother_city} is suiting him and the new "
                "place has a view of the harbour",
                reply=("A harbour view! Are you going to visit?",),
            ),
        ),
        ("Where is {brother} based these days?", "Which city did my sibling relocate to?"),
        decoys=(
            _t(
                "{brother} rang for an hour about football, I understood none of it",
                reply=("Brothers and football, a classic pairing.",),
            ),
        ),
        name="brother city",
    ),
    Story(
        "single",
        (
            _t(
                "Every Wednesday evening I'm now in a room above the library learning to "
                "{hobby}, which is either brave or stupid at my age",
                "I've signed up to learn to {hobby} on Wednesdays, the teacher is a retired "
                "sailor with an enormous laugh",
                reply=("Not stupid at all. What made you pick that?",),
            ),
        ),
        ("What's my midweek class about?", "Which new skill am I picking up in the evenings?"),
        name="hobby",
    ),
    Story(
        "single",
        (
            _t(
                "The dentist finally saw me, it was {tooth} and now I need a crown",
                "So the pain turned out to be {tooth}, the dentist winced when she saw it",
                reply=("Ouch. I hope the crown sorts it.",),
            ),
        ),
        ("What was wrong with my mouth?", "Why was my jaw aching?"),
        name="tooth",
    ),
    Story(
        "single",
        (
            _t(
                "I've given up on the bus and bought {ride} for getting to the office",
                "The commute is now on {ride}, it squeaks and I love it",
                reply=("Good for you, the fresh air will help.",),
            ),
        ),
        ("How do I get to work now?", "What did I buy to stop sitting in traffic?"),
        name="commute",
    ),
    Story(
        "single",
        (
            _t(
                "When I was small we lived above a {shop} in {hometown} and I used to sneak "
                "downstairs to watch the customers",
                "I grew up over a {shop} in {hometown}, Mum still has photos of me behind "
                "the counter",
                reply=("What a place to spend a childhood.",),
            ),
        ),
        ("Where was I raised?", "What business was underneath our home when I was a child?"),
        name="hometown",
    ),
    Story(
        "single",
        (
            _t(
                "Do you have a favourite time of year?",
                "Which part of the year do you like best?",
                reply=(
                    "If I had to choose it would be {season}, I like the low light and how "
                    "quiet everything goes.",
                ),
                who="persona",
            ),
        ),
        ("Which season did you say you prefer?", "What time of year do you like most?"),
        name="persona season",
    ),
    # -- multi-hop: two turns from different sessions ---------------------------------------
    Story(
        "multihop",
        (
            _t(
                "{friend} told me over lunch she's moving to {friend_city} at the end of the "
                "month, I'm gutted",
                reply=("That's a big move. You'll have somewhere to visit at least.",),
            ),
            _t(
                "Got a postcard from {friend}, she's started at {friend_work} and says the "
                "people are lovely",
                reply=("Lovely that she's settling in.",),
            ),
        ),
        (
            "What job did my friend find after she moved to {friend_city}?",
            "What is the friend who emigrated doing for work now?",
        ),
        name="friend abroad",
    ),
    Story(
        "multihop",
        (
            _t(
                "Our neighbour {neighbour} was beaming over the fence, his girl {daughter} got "
                "her university offer",
                reply=("Good for her! What's she going to study?",),
            ),
            _t(
                "Bumped into {daughter} at the station on her way back to {uni_city}, she's "
                "loving {subject}",
                reply=("Nice to hear she's enjoying it.",),
            ),
        ),
        (
            "What is the girl from next door studying at university?",
            "Which subject did {neighbour}'s daughter go off to study?",
        ),
        name="neighbour daughter",
    ),
    Story(
        "multihop",
        (
            _t(
                "{partner} and I finally booked it, ten days in {trip} once the weather turns",
                reply=("Amazing, you both need it.",),
            ),
            _t(
                "Back home and still sunburnt, the best bit by far was {highlight}",
                reply=("That sounds like a memory for life.",),
            ),
        ),
        (
            "What was the best moment of the {trip} holiday?",
            "What stood out most from our time in {trip}?",
        ),
        name="trip highlight",
    ),
    Story(
        "multihop",
        (
            _t(
                "Any ideas for a novel? I've run out of things to read",
                reply=("You might like {book}, it's slow at first but it stays with you.",),
            ),
            _t(
                "I finished the one you suggested last night and sobbed at the ending, thank you",
                reply=("I'm so glad it landed with you.",),
            ),
        ),
        (
            "Did I read the book you recommended, and what was it?",
            "Which title of yours made me cry?",
        ),
        name="book recommended",
    ),
    Story(
        "multihop",
        (
            _t(
                "I've torn a ligament in my knee at five-a-side, I'm on crutches for weeks",
                reply=("Oh no, rest it properly.",),
            ),
            _t(
                "The physio has signed me off, I can finally run again without it clicking",
                reply=("Brilliant news after all that time.",),
            ),
        ),
        (
            "Have I recovered from the football injury?",
            "Is the leg I hurt playing football healed now?",
        ),
        name="knee",
    ),
    # -- temporal: when, relative to the session, or to another event -----------------------
    Story(
        "temporal",
        (
            _t(
                "I handed in my notice yesterday, my hands were shaking the whole time",
                "Yesterday I told my manager I'm leaving, it felt like jumping off a cliff",
                reply=("That takes courage. How do you feel today?",),
            ),
        ),
        ("When did I resign?", "What did I do at work in {month}?"),
        name="resigned",
    ),
    Story(
        "temporal",
        (
            _t(
                "We fly to {trip} on Saturday, so this week is all lists and laundry",
                reply=("Exciting! Make a list of lists.",),
            ),
            _t(
                "I also got my hair cut really short before we go, {partner} says I look like "
                "a monk",
                reply=("Practical for the heat, at least.",),
            ),
        ),
        (
            "What did I change about my looks the week before we flew out?",
            "Just before our holiday, what did I do to my appearance?",
        ),
        gap="same",
        name="before the trip",
    ),
    Story(
        "temporal",
        (
            _t(
                "I went to my first {new_sport} session last week and I can't lift my arms",
                "Last week I joined a {new_sport} club, I am terrible and very happy",
                reply=("The first weeks are the hardest, keep at it.",),
            ),
        ),
        ("What sport did I take up in {month}?", "When did I start the new team sport?"),
        name="new sport",
    ),
    Story(
        "temporal",
        (
            _t(
                "{kid}'s school play was last night, she was a tree and took it very seriously",
                reply=("The best trees are the serious ones.",),
            ),
        ),
        ("When was {kid}'s performance at school?", "What did {kid} do on stage in {month}?"),
        name="school play",
    ),
    Story(
        "temporal",
        (
            _t(
                "We got the keys to the new place on {street}, the whole flat smells of paint",
                reply=("Congratulations on the new home!",),
            ),
            _t(
                "The kitten from {friend}'s litter came home with us this weekend, she already "
                "owns the sofa",
                reply=("Cats always know which seat is best.",),
            ),
        ),
        (
            "How long after moving house did we get a new pet?",
            "Did the little one from the litter arrive before or after we changed address?",
        ),
        name="move then cat",
    ),
    # -- reference: a question that refers back to something said before -------------------
    Story(
        "reference",
        (
            _t(
                "{partner} and I have our anniversary coming up, where should we eat?",
                reply=(
                    "You could try {restaurant} by the canal, people rave about their "
                    "{restaurant_dish}.",
                ),
            ),
        ),
        (
            "What was that place you suggested for our special dinner?",
            "Remind me of the spot you recommended for the anniversary?",
        ),
        decoys=(
            _t(
                "Ate at the new burger bar by the station, it was fine, nothing special",
                reply=("Fine is sometimes all you need.",),
            ),
        ),
        name="restaurant",
    ),
    Story(
        "reference",
        (
            _t(
                "{mum}'s seventieth is in a few weeks and I have no idea what to get her, "
                "she says she wants nothing",
                reply=("Nothing usually means something thoughtful.",),
            ),
            _t(
                "Sorted the present in the end, a {gift}, and she cried a bit",
                reply=("That's lovely, she clearly loved it.",),
            ),
        ),
        (
            "What did I end up giving her for the big birthday?",
            "What was the present for my mother's seventieth in the end?",
        ),
        name="mum gift",
    ),
    Story(
        "reference",
        (
            _t(
                "We viewed a house on {street} today, huge garden but {house_flaw}",
                reply=("Gardens are hard to find, kitchens can be changed.",),
            ),
        ),
        (
            "What was the catch with that place we went to see?",
            "What put me off the property we looked round?",
        ),
        name="house viewing",
    ),
    Story(
        "reference",
        (
            _t(
                "{friend} said something that stuck with me: {quote}",
                reply=("That's a good one to keep.",),
            ),
        ),
        (
            "What was the advice my friend gave me that I kept thinking about?",
            "Remind me of the words of wisdom I heard from a friend?",
        ),
        name="quote",
    ),
    # -- open: the answer is inferred from what was said -----------------------------------
    Story(
        "open",
        (
            _t(
                "I {diet}, and honestly I feel better for it",
                reply=("Lots of people say the same.",),
            ),
        ),
        (
            "Would a steakhouse voucher be a good present for me?",
            "Should we take me to a barbecue restaurant for my birthday?",
        ),
        name="diet",
    ),
    Story(
        "open",
        (
            _t(
                "{kid} talks about nothing but {kid_obsession}, every single meal",
                reply=("A proper passion, that's wonderful at that age.",),
            ),
        ),
        (
            "What might {kid} like as a present?",
            "Any idea what would delight {kid} on a day out?",
        ),
        name="kid interest",
    ),
    Story(
        "open",
        (
            _t(
                "I get properly panicky on planes, last time I shook from take-off to landing",
                reply=("That's horrible, there are courses for that, you know.",),
            ),
        ),
        (
            "Would I rather take the train or fly to a conference abroad?",
            "How would I feel about a long-haul journey by air?",
        ),
        name="flying",
    ),
    Story(
        "open",
        (
            _t(
                "I bought {shoes} and I've been out on the moor every Sunday since",
                reply=("Sunday on the moor sounds perfect.",),
            ),
        ),
        (
            "Would I enjoy a weekend in the hills?",
            "What do I like to do outdoors at weekends?",
        ),
        name="outdoors",
    ),
]


CHATTER: list[str] = [
    "Long day today, the kind where you look up and it's dark already",
    "{partner} made soup again, it's the third time this week and I'm not complaining",
    "It's been raining since Tuesday and the garden is basically a pond",
    "I keep meaning to call {mum} back and then it's ten o'clock",
    "{friend} came round for tea and we talked until the candles burnt down",
    "The neighbours are having the kitchen redone so it's drills from eight",
    "I watched half a film last night and fell asleep on the sofa",
    "Work was fine, nothing worth telling really",
    "The trains were late again, I read three chapters on the platform",
    "{brother} sent a photo of his breakfast, as he does every morning",
    "I tried a new recipe and it was a disaster, we had toast",
    "Someone at the office brought cake, so the day was saved",
    "{kid} has a cold and has been dramatic about it all weekend",
    "I did the big shop and forgot the one thing I went in for",
    "We had a bit of a row about the washing up, it's fine now",
    "The heating broke for a day and we wore coats indoors",
    "My phone screen cracked, I'm squinting at a spider web",
    "{neighbour} was out clipping the hedge in his dressing gown",
    "I finally sorted the cupboard under the stairs, found four umbrellas",
    "Been sleeping badly, I think it's the streetlight outside",
    "{partner} is obsessed with a quiz show and shouts the answers",
    "I walked into town just to get out of the house",
    "The market had those tomatoes again, the ugly ones that taste amazing",
    "I spent the evening on a puzzle with a thousand pieces of sky",
    "{friend} is thinking of getting a tattoo and wants my opinion, which is dangerous",
    "There was a fox in the garden at midnight, staring at me",
    "I ran out of coffee and had to face the morning without it",
    "We cleaned the car for the first time since summer",
    "Spent the afternoon on hold with the bank, the music is still in my head",
    "It's quiet tonight, just the dishwasher and the radio",
    "{mum} has discovered voice notes and sends them at six in the morning",
    "I'm trying to drink more water and mostly just visiting the loo",
    "The sunset tonight was ridiculous, all pink and orange",
    "I bought a plant to cheer up the desk, it already looks worried",
    "We went for a walk by the river and got caught in a shower",
]

REPLIES: list[str] = [
    "That sounds like a full day. How are you feeling now?",
    "Ha, I love that. Tell me more.",
    "Oh dear. I hope tomorrow is kinder.",
    "I've always liked evenings like that, slow and quiet.",
    "I'm a sucker for a good sunset myself.",
    "Small things like that make a week, don't they?",
    "I'd have done exactly the same, honestly.",
    "That made me smile.",
    "Sounds cosy. I'm partial to rainy evenings indoors.",
    "I hope you got some rest in the end.",
    "I keep telling myself to be more organised too, it never lasts.",
    "You're doing better than you think.",
    "What a picture. I can just see it.",
    "If I could drink coffee I think I'd be a three-cup person.",
    "Fair enough. Anything else on your mind?",
]

OPENERS: list[tuple[str, str]] = [
    ("hey, you around?", "Always. How's things?"),
    ("evening!", "Evening! How was your day?"),
    ("hi again", "Hello! What's new?"),
    ("morning, quick one before work", "Morning! Go on."),
]

CLOSERS: list[tuple[str, str]] = [
    ("right, bed for me", "Sleep well!"),
    ("ok that's me, thanks for listening", "Any time. Talk soon."),
    ("off to make dinner, bye", "Enjoy it!"),
]
