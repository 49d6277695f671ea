"""The rule tables the identity observer reads messages with, English and Portuguese.

Every pattern runs on *folded* text: lower case, accents removed, curly quotes straightened,
whitespace collapsed, so "não" and "nao" are one word. Explicit requests are
``(regex, kind, value)`` rows; a value of ``"{lang}"`` or ``"{name}"`` is taken from the
named group. Inferred signals are word lists and marker regexes. Adding a language means adding
rows, not code. Requests to stop doing something come first in each table only for reading;
the detector keeps the outermost match, so "don't use emojis" is never read as "use emojis".
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DOMAIN_TERMS",
    "EXPLICIT",
    "FORMAL_MARKERS",
    "JARGON",
    "LANGUAGE_WORDS",
    "NOT_NAMES",
    "SARCASM_MARKERS",
    "SLANG",
    "VOCATIVE_OPENERS",
    "Trait",
]


@dataclass(frozen=True, slots=True)
class Trait:
    """One observation of the user's style in one message."""

    kind: str
    value: str
    explicit: bool
    evidence: str


#: words that follow "call me" without being a name ("call me back", "call me crazy, but")
NOT_NAMES = frozenset(
    """
    back later tomorrow tonight today now when whenever if at on in after before again soon
    asap anytime any please pls maybe crazy old old-fashioned naive paranoid lazy a an the out
    up sometime once first then or and but so by you your that this it
    volta depois amanha hoje agora quando se no na em novo mais tarde logo um uma o a voce
    senhor senhora
    everyone everybody all guys folks friend man dude bro mate buddy pal much lots very
    gente pessoal amigo amiga cara mano demais mesmo viu tudo
    monday tuesday wednesday thursday friday saturday sunday god
    """.split()
)

#: a name of one or two words; the second may not be a polite closing ("Scotty please")
_NAME = (
    r"(?P<name>[^\W\d_][\w'\-]{0,23}(?: (?!please\b|pls\b|instead\b|from\b|por\b|a\b"
    r"|daqui\b|de\b|now\b|ok\b)[^\W\d_][\w'\-]{0,23})?)"
)
#: what may follow a name: the end of the clause or a polite closing
_END = (
    r"(?=\s*(?:$|[.,!?;:)\"']|please\b|pls\b|instead\b|from now on\b|por favor\b"
    r"|a partir de agora\b|daqui (?:pra|para) frente\b|de agora em diante\b))"
)
_LANG = (
    r"(?P<lang>english|portuguese|spanish|french|german|italian|ingles|portugues|espanhol"
    r"|frances|alemao|italiano)"
)

#: "be ..." as a request to the persona, not a statement ("it should be short", "I'll be brief")
_BE = (
    r"(?:\byou (?:should|could|can|must) be\b|(?<!should )(?<!would )(?<!could )(?<!must )"
    r"(?<!might )(?<!will )(?<!'ll )(?<!to )(?<!it )(?<!not )(?<!i )(?<!we )(?<!they )"
    r"(?<!he )(?<!she )\bbe\b)"
)
#: a verb as a request, not a statement ("answer in Portuguese", not "I write in Portuguese")
_ASK = r"(?<!i )(?<!we )(?<!they )(?<!he )(?<!she )(?<!to )"

# the rule tables below are laid out by hand, a rule a group of lines
# fmt: off
#: (pattern, kind, value) per language
EXPLICIT: dict[str, list[tuple[str, str, str]]] = {
    "en": [
        (rf"(?:{_BE}|\bkeep it|\bkeep (?:your |the )?(?:answers|replies|responses|messages)"
         rf"|{_ASK}\b(?:answer|reply|write))(?: much| way| a bit| a little)? (?:more )?"
         r"(?:concise|brief|short(?:er)?|succinct|direct|to the point)\b", "length", "short"),
        (r"\b(?:shorter|briefer|more concise|more direct) (?:answers|replies|responses|messages)\b",
         "length", "short"),
        (r"\b(?:your )?(?:answers|replies|responses|messages) are (?:way |much )?too (?:long"
         r"|wordy|verbose)\b|\byou(?:'re| are) (?:way )?too (?:wordy|verbose)\b"
         r"|\bless (?:verbose|wordy)\b", "length", "short"),
        (rf"(?:{_BE}|{_ASK}\b(?:answer|reply|write)) more (?:detailed|thorough)\b"
         r"|\b(?:longer|more detailed"
         r"|more thorough) (?:answers|replies|responses|explanations)\b|\b(?:answers|replies"
         r"|responses) are too short\b|\bexplain things in (?:more )?detail\b",
         "length", "detailed"),
        (rf"{_ASK}\b(?:answer|reply|respond|speak|talk|write)(?: to me)? (?:in|using) {_LANG}\b",
         "language", "{lang}"),
        (r"\b(?:don't|do not|never|stop|no need to)(?: (?:use|using|send|sending|add|adding"
         r"|put|putting|with))?(?: any| the| so many| those| all those)? emoj(?:i|is|ies)\b"
         r"|\b(?:no|without|less|fewer)(?: more)? emoj(?:i|is|ies)\b", "emoji", "none"),
        (r"\b(?:use|add|send|put)(?: more| some)? emoj(?:i|is|ies)\b"
         r"|\bemoj(?:i|is|ies) are (?:fine|welcome|ok|okay)\b", "emoji", "welcome"),
        (rf"(?<!n't )(?<!not )(?<!never )(?<!stop )\bcall me {_NAME}{_END}", "user_name",
         "{name}"),
        (rf"\b(?:i'll|i will|i'm going to|i am going to|i'm gonna|can i|may i|let me|i'd like to)"
         rf" call you {_NAME}{_END}", "persona_nickname", "{name}"),
        (r"\b(?:no|without|less|skip the|cut the|drop the) (?:technical )?jargon\b"
         rf"|(?:{_BE}|\bkeep it) (?:less technical|simpler|simple)\b|\bexplain things (?:more )?"
         r"simply\b|\bi'?m not (?:a|an) (?:tech(?:nical)? person|techie|engineer|programmer"
         r"|developer)\b", "register", "plain"),
        (rf"(?:{_BE}|\bget|\bgo) more technical\b|\byou can be (?:more )?technical\b"
         r"|\b(?:don't|no need to) (?:dumb|water) (?:it|things) down\b|\bi'?m (?:a|an)"
         r" (?:software )?(?:developer|programmer|engineer|sysadmin|data scientist)\b",
         "register", "technical"),
        (r"\b(?:no|less|without|cut the|drop the|don't be|do not be|stop being|not so)"
         rf" (?:sarcas\w*|ironic|irony|snark\w*)\b|(?:{_BE}|\bget) more serious\b"
         r"|\b(?:no|fewer|less|stop (?:the|with the|making)) jokes\b", "humour", "serious"),
        (rf"(?:{_BE}|\bget) (?:a bit )?(?:more (?:funny|playful|fun|lighthearted|witty)|funnier)\b"
         r"|\bmore (?:humou?r|jokes)\b", "humour", "playful"),
        (r"\byou can be (?:sarcastic|ironic|snarky)\b|\bi (?:like|love|enjoy) (?:your )?"
         r"(?:sarcasm|irony|snark)\b", "humour", "sarcastic"),
        (rf"(?:{_BE}|{_ASK}\b(?:sound|write|speak|talk))(?: more| a bit more)? (?:casual(?:ly)?"
         r"|informal(?:ly)?"
         r"|relaxed)\b|\bless formal\b|\b(?:no need to be|don't be so|stop being so) formal\b",
         "formality", "casual"),
        (rf"(?:{_BE}|{_ASK}\b(?:sound|write|speak|talk))(?: more| a bit more)? formal(?:ly)?\b",
         "formality", "formal"),
        (r"\b(?:no|without|fewer|less|stop using|don't use) (?:bullet(?:ed)?(?: points?| lists?)?"
         r"|bullets|lists)\b|\b(?:in|use|write in) (?:plain )?prose\b", "format", "prose"),
        (r"\b(?:use|with|in) (?:bullet(?: points?| lists?)?|bullets|lists)\b", "format", "lists"),
        (r"\bask (?:me )?(?:fewer|less) questions\b|\bstop asking (?:me )?(?:so many )?"
         r"(?:questions|follow[- ]?ups?)\b|\b(?:don't|do not|no need to) (?:ask|suggest|offer)"
         r" (?:me )?(?:so many )?(?:follow[- ]?ups?|questions|suggestions|next steps)\b"
         r"|\bjust answer (?:what i ask|the question)\b|\bonly answer what i ask\b",
         "initiative", "reactive"),
        (rf"(?:{_BE}|\bget) more proactive\b|\b(?:feel free to|go ahead and) (?:suggest|propose"
         r"|take (?:the )?initiative)\b|\btake (?:more )?initiative\b", "initiative",
         "proactive"),
    ],
    "pt": [
        (r"\b(?:seja|sejas|fique|fale|fala|responda|responde|escreva|escreve)(?: um pouco| bem)?"
         r" (?:mais )?(?:diret[oa]|concis[oa]|breve|objetiv[oa]|curt[oa]|sucint[oa])\b"
         r"|\brespostas mais (?:curtas|diretas|objetivas|concisas|breves)\b"
         r"|\b(?:sem|menos) enrolacao\b|\bnao enrola\b|\b(?:suas )?respostas (?:estao|sao|tao)"
         r" (?:muito )?(?:longas|compridas|grandes)\b", "length", "short"),
        (r"\b(?:seja|responda|escreva|explique) (?:mais )?(?:detalhad[oa]|complet[oa]"
         r"|aprofundad[oa])\b|\brespostas mais (?:longas|completas|detalhadas)\b"
         r"|\b(?:suas )?respostas (?:estao|sao|tao) (?:muito )?curtas\b", "length", "detailed"),
        (rf"\b(?:responda|responde|fale|fala|escreva|escreve|converse|conversa)(?: comigo)?"
         rf" em {_LANG}\b", "language", "{lang}"),
        (rf"\bem {_LANG},? por favor\b", "language", "{lang}"),
        (r"\b(?:nao|para de|pare de|chega de)(?: (?:use|usa|usar|mande|manda|mandar|coloque"
         r"|coloca|colocar|ponha|poe|por))?(?: mais)?(?: tantos)? emojis?\b|\bsem emojis?\b",
         "emoji", "none"),
        (r"\b(?:pode|podes|voce pode|vc pode) (?:usar|mandar|colocar|por) emojis?\b"
         r"|\b(?:use|usa|coloque|coloca|mande|manda) (?:mais )?emojis?\b", "emoji", "welcome"),
        (rf"(?<!nao )\b(?:me chame|me chama|me chamar|me chamem) de {_NAME}{_END}", "user_name",
         "{name}"),
        (rf"\b(?:vou|posso|quero|deixa eu|vou passar a) te chamar de {_NAME}{_END}",
         "persona_nickname", "{name}"),
        (rf"\bte chamo de {_NAME}{_END}", "persona_nickname", "{name}"),
        (r"\bsem (?:jargao|jargoes|tecniques|termos tecnicos)\b|\b(?:menos|nao seja tao)"
         r" tecnic[oa]\b|\b(?:explique|explica|fale|fala) as coisas (?:de forma|de um jeito"
         r"|de modo) (?:simples|facil)\b|\bnao sou (?:programador\w*|tecnic[oa]|da area"
         r"|engenheir[oa])\b", "register", "plain"),
        (r"\b(?:pode ser|seja|fique a vontade para ser) (?:mais )?tecnic[oa]\b|\bsou (?:dev"
         r"|programador\w*|desenvolvedor\w*|engenheir[oa] de software|sysadmin)\b",
         "register", "technical"),
        (r"\bsem (?:sarcasmo|ironia|gracinhas?|piadas?)\b|\b(?:para|pare) de (?:ser )?"
         r"(?:sarcastic[oa]|ironic[oa]|fazer piadas?|zoar)\b|\bseja (?:mais )?seri[oa]\b"
         r"|\bmenos (?:sarcasmo|ironia|piadas?)\b|\bnao (?:seja|precisa ser) (?:tao )?"
         r"(?:sarcastic[oa]|ironic[oa])\b", "humour", "serious"),
        (r"\bseja (?:mais )?(?:engracad[oa]|divertid[oa])\b|\bmais (?:humor|piadas)\b",
         "humour", "playful"),
        (r"\bpode (?:ser|usar) (?:sarcastic[oa]|ironic[oa]|sarcasmo|ironia)\b|\bpode zoar\b"
         r"|\b(?:gosto|adoro) (?:de |do seu )?(?:sarcasmo|ironia)\b", "humour", "sarcastic"),
        (r"\b(?:seja|fale|fala|escreva|pode ser) (?:mais )?(?:informal|descontraid[oa]|casual"
         r"|relaxad[oa])\b|\bmenos formal\b|\bnao precisa (?:ser )?(?:tao )?formal\b"
         r"|\bsem formalidades?\b", "formality", "casual"),
        (r"\bseja (?:mais )?formal\b|\bfale (?:de forma |mais )?formal(?:mente)?\b",
         "formality", "formal"),
        (r"\b(?:sem|nao use|nao usa|menos) (?:listas|topicos|bullets?|marcadores)\b"
         r"|\bem texto corrido\b", "format", "prose"),
        (r"\b(?:use|usa|em|com) (?:listas|topicos|bullets?|marcadores)\b", "format", "lists"),
        (r"\b(?:faca|faz) menos perguntas\b|\b(?:para|pare) de (?:me )?(?:perguntar|fazer"
         r" perguntas|sugerir)\b|\bso (?:me )?responda o que eu (?:pergunt\w+|ped\w+)\b"
         r"|\bnao precisa (?:sugerir|me perguntar|perguntar)\b", "initiative", "reactive"),
        (r"\bseja (?:mais )?proativ[oa]\b|\bpode (?:sugerir|dar sugestoes|tomar a iniciativa)\b"
         r"|\btome (?:mais )?iniciativa\b", "initiative", "proactive"),
    ],
}

#: language words in a request ("answer in Portuguese") to language codes
LANGUAGE_WORDS: dict[str, str] = {
    "english": "en", "ingles": "en",
    "portuguese": "pt", "portugues": "pt",
    "spanish": "es", "espanhol": "es",
    "french": "fr", "frances": "fr",
    "german": "de", "alemao": "de",
    "italian": "it", "italiano": "it",
}

#: greetings and thanks that, followed by a capitalised word, address the persona by a name
VOCATIVE_OPENERS = (
    r"(?:hey|hi|hello|yo|morning|good (?:morning|night|evening|afternoon)|thanks|thank you|thx"
    r"|cheers|bye|night|oi|ola|e ai|bom dia|boa (?:tarde|noite)|obrigad[oa]|brigad[oa]|valeu"
    r"|tchau)"
)

#: irony markers; one in a message is one sighting of a sarcastic register
SARCASM_MARKERS: dict[str, list[str]] = {
    "en": [
        r"(?:^|\s)/s\b", r"\byeah,? right\b", r"\boh,? (?:great|wonderful|fantastic|perfect|joy"
        r"|brilliant|lovely)\b", r"\bwhat could (?:possibly )?go wrong\b", r"\bsaid no one ever\b",
        r"\b(?:sure|totally),? because\b", r"\bjust what i needed\b",
        r"\bhow (?:wonderful|lovely|convenient)\b", r"\bthanks for nothing\b",
    ],
    "pt": [
        r"\bso que nao\b", r"\bsqn\b", r"\baham,? (?:claro|sei)\b", r"\bque otimo,? (?:ne|hein)\b",
        r"\bnossa,? que surpresa\b", r"\bque maravilha,? (?:ne|hein)\b", r"\bparabens pra mim\b",
        r"\bclaro,? ne\b",
    ],
    "any": ["\U0001f644", "\U0001f612", "\U0001f643"],
}

#: chat slang; a message with one is a sighting of a casual register
SLANG: dict[str, str] = {
    "en": r"\b(?:lol|lmao|rofl|gonna|wanna|gotta|dude|bro|nah|yep|yup|btw|idk|tbh|imo|omg"
          r"|ha(?:ha)+)\b",
    "pt": r"\b(?:k{3,}|rs(?:rs)+|vc|vcs|tb|tbm|blz|mano|vlw|mds|sla|pfv|pfvr|oq|ha(?:ha)+)\b",
}

#: openings and closings of formal letters
FORMAL_MARKERS: dict[str, str] = {
    "en": r"^dear\b|\b(?:kind regards|best regards|yours sincerely|i would be grateful if"
          r"|would you kindly)\b",
    "pt": r"^prezad[oa]s?\b|\b(?:atenciosamente|cordialmente|gostaria de solicitar"
          r"|agradeco desde ja|respeitosamente)\b",
}
# fmt: on

_PROGRAMMING = (
    "api endpoint regex json yaml sql query database schema docker kubernetes k8s container"
    " deploy deployment commit git branch merge rebase compile compiler runtime traceback"
    " stack_trace segfault null_pointer async await thread mutex latency throughput cache http"
    " https tcp dns ssh cli bash shell python javascript typescript rust golang java kotlin linux"
    " kernel refactor unit_test pipeline lambda function variable array hashmap repo"
    " pull_request npm pip venv stdout stderr exception utf-8 backend frontend server bug debug"
    " banco_de_dados consulta servidor codigo compilar funcao variavel requisicao repositorio"
)

#: technical terms; two in a message (or any code) is a sighting of a technical register
JARGON = frozenset(term.replace("_", " ") for term in _PROGRAMMING.split())

#: terms by domain; two of one domain in a message is a sighting of reliance on that expertise
DOMAIN_TERMS: dict[str, frozenset[str]] = {
    "programming": JARGON,
    **{
        domain: frozenset(term.replace("_", " ") for term in terms.split())
        for domain, terms in {
            "cooking": "recipe bake baking oven simmer saute dough marinate ingredients"
            " tablespoon teaspoon flour yeast receita forno massa assar refogar tempero"
            " ingredientes colher_de_sopa farinha fermento panela",
            "money": "budget invoice taxes tax_return mortgage loan savings invest investment"
            " stocks pension expenses bank_account orcamento imposto boleto fatura emprestimo"
            " financiamento investimento poupanca acoes despesas conta_bancaria aposentadoria"
            " salario",
            "fitness": "workout gym reps cardio protein marathon calories stretching squat"
            " deadlift treino academia musculacao corrida proteina calorias alongamento"
            " maratona agachamento",
            "travel": "flight hotel itinerary passport visa booking airport layover luggage voo"
            " roteiro passaporte visto reserva aeroporto escala bagagem",
            "writing": "draft essay paragraph proofread rewrite cover_letter wording rascunho"
            " redacao paragrafo revisar reescrever carta_de_apresentacao",
            "gardening": "garden soil compost seeds pruning watering fertilizer seedlings jardim"
            " horta adubo sementes poda regar muda vaso",
        }.items()
    },
}
