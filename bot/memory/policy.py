"""The write policy: which sentences deserve long-term memory, and under which category.

A rule layer, no model. Each candidate sentence is first checked for secrets (passwords, API
keys, tokens, card numbers: always rejected), then for trivia (``ok``, ``valeu``, ``kkkk``,
emojis, questions that state nothing), then scored against per-language pattern tables for
the five durable categories and for ephemeral markers ("right now", "estou almoçando").
Matching runs on accent-folded lower-case text, so "almoçando" and "almocando" are one word.

The tables below are plain data, one list of ``(regex, weight)`` per label and language; adding
a language means adding its tables, not code. Every regex is compiled once, at import.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from bot.memory.base import CATEGORIES, Category

__all__ = [
    "Verdict",
    "classify",
    "fold",
    "guess_language",
    "looks_secret",
    "secret_kind",
    "split_candidates",
]

# -- pattern tables (folded text: lower case, no accents) ----------------------------------

_MY = r"(?:my|our)"
_MEU = r"(?:meu|minha|meus|minhas|nosso|nossa|nossos|nossas)"
_DAYS_EN = r"(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekends?)"
_DAYS_PT = r"(?:segundas?|tercas?|quartas?|quintas?|sextas?|sabados?|domingos?|fins? de semana)"

_IMPERATIVE_EN = (
    r"lift|adjust|press|hold|turn|unplug|add|put|use|pour|soak|rinse|wipe|spray|tap|jiggle"
    r"|shake|open|close|check|run|try|let|leave|switch|flip|reset|clean|mix|boil|freeze|heat"
    r"|cover|remove|take|push|pull|twist|wait|enter|scrub|sprinkle|stir|bake|cook"
)
_IMPERATIVE_PT = (
    r"levanta|ajusta|aperta|segura|desliga|liga|coloca|poe|usa|joga|deixa|tira|passa|lava"
    r"|limpa|congela|tampa|espera|mexe|vira|gira|puxa|empurra|reinicia|troca|abre|fecha"
    r"|esfrega|ferve|assa|polvilha|mistura|bate"
)

RULES: dict[str, dict[str, list[tuple[str, float]]]] = {
    "en": {
        "fact": [
            (rf"\b{_MY} [\w']+(?: [\w']+){{0,3}} (?:is|are|was|were|lives?|works?|has|have"
             r"|goes|takes|starts|gets|comes)\b", 2.0),
            (r"\bi (?:live|lived|work|worked|was born|grew up|own|study|studied|teach|speak"
             r"|drive|go to|take|used to)\b", 2.0),
            (r"\bi (?:have|'ve got|got) (?:a|an|two|three|four|\d+|no) \w+", 2.0),
            (r"\bi(?:'m| am) (?:a|an|allergic|lactose|gluten|vegetarian|vegan|diabetic|married"
             r"|divorced|single|pregnant|retired|from|\d+ years old|left[- ]handed)\b", 2.5),
            (r"\b(?:birthday|anniversary|born on|name is|is called|years old|allerg\w*"
             r"|lives in|works at|works as|address|blood type|shoe size)\b", 1.5),
            (rf"\b(?:every|each) (?:day|morning|evening|night|week|month|year|{_DAYS_EN})\b", 1.0),
            (rf"\bon {_DAYS_EN}\b", 1.0),
            (r"\b(?:we|they|he|she) (?:live|lives|have|has|own|owns|work|works|moved)\b", 1.0),
            (r"\b(?:starts|opens|closes|ends|is due) (?:at|on|every)\b", 1.5),
            (r"\b(?:is|are|was|'s) (?:my|our)\b", 2.0),
            (r"\b(?:turns|turned) \d+\b", 2.0),
            (r"\b(?:is|are|stays|stay|lives|live|goes|go) (?:in|on|with|under|behind|inside|at"
             r"|next to) (?:the|our|my|a|\w+'s)\b", 1.5),
            (r"\b(?:moved|got married|married|graduated|retired|divorced|started working)\b", 2.0),
            (r"\b(?:19|20)\d\d\b", 1.0),
        ],
        "preference": [
            (r"\bi (?:really |absolutely |much |also |just )?(?:prefer|love|like|hate|dislike"
             r"|enjoy|adore|loathe|can'?t stand|do(?:n'?t| not) (?:really )?(?:like|want|enjoy|eat|"
             r"drink))\b", 2.5),
            (r"\bi(?:'d| would) (?:much )?rather\b", 2.5),
            (r"\b(?:favou?rite|fan of|not a fan|into)\b", 2.5),
            (r"\b(?:keep|make) (?:your|the) (?:answers|replies|messages|responses)\b", 2.5),
            (r"\b(?:in|on) your (?:replies|answers|messages|responses)\b", 2.0),
            (r"\b(?:don'?t|do not|never) (?:send|call|text|message|remind|wake|book|schedule"
             r"|suggest|bother|put|add|order)\b", 2.5),
            (r"\b(?:is|are) the (?:best|worst)\b", 2.0),
            (r"\b(?:please )?(?:always|never|don'?t ever) (?:call|answer|reply|use|write|send"
             r"|remind|talk|speak|suggest|book|order|schedule)\b", 2.5),
            (r"\b(?:call me|i want you to|i'd like you to|i like it when|i like my|"
             r"i take my|i drink my)\b", 2.5),
            (r"\b(?:too (?:sweet|spicy|salty|loud|early|late)|works better for me)\b", 1.0),
        ],
        "decision": [
            (r"\b(?:we|i)(?: have|'ve)? (?:decided|chose|chosen|agreed|settled on|picked|opted"
             r"|committed)\b", 3.0),
            (r"\b(?:decided|decision|settled|final answer)\b", 2.0),
            (r"\b(?:from now on|going forward|starting (?:next|tomorrow|this|on|in|monday)"
             r"|from (?:next|this) (?:week|month|year))\b", 2.5),
            (r"\b(?:we'll|we will|we're going to|we are going to|i'll|i'm going to|i will)"
             r" (?:go with|use|switch|start|stop|keep|sell|buy|cancel|move|book|hire|paint"
             r"|skip|take)\b", 2.0),
            (r"\b(?:we're|we are) (?:keeping|doing|going with|getting|switching|selling"
             r"|buying|moving|skipping)\b", 2.0),
            (r"\b(?:we're|we are|i'm|i am) not (?:renewing|buying|going to|getting|keeping"
             r"|doing|hiring|moving)\b", 2.0),
            (r"\b(?:let'?s go with|we'?re going with|the plan is|no longer|won'?t (?:buy|use"
             r"|order)|cancel(?:led|ed|ing) (?:the|our|my))\b", 2.0),
        ],
        "skill": [
            (r"\bthe (?:trick|secret|key|way|best way) (?:to|is|for)\b", 2.5),
            (r"\bi (?:know how to|can (?:play|cook|bake|speak|drive|swim|sew|knit|code|fix"
             r"|sing|dance))\b", 2.5),
            (r"^(?:to|in order to|if you want to) \w+\b[^,]{0,60},", 2.5),
            (rf"\b(?:when|if|whenever) [^,]{{3,60}}, (?:just |then )?(?:{_IMPERATIVE_EN})\b", 2.5),
            (rf"^(?:{_IMPERATIVE_EN}) \w+.*\b(?:and|then|until|before|after|so)\b", 2.0),
            (r"\b(?:you can|you could|it'?s (?:much |a lot )?easier to|helps to) (?:\w+ )?"
             r"(?:clean|fix|remove|get|make|use|unclog|freeze|reheat|store|grate|peel|keep)\b",
             2.0),
            (r"\b(?:makes|keeps|gives) (?:the |it |them |your )?\w+ (?:taste|crisp\w*|soft\w*"
             r"|fluff\w*|last|fresh\w*|tender|moist)", 2.0),
            (r"\bi (?:learned|learnt|taught myself) (?:how )?to\b", 2.5),
            (r"\b(?:just |you (?:have|need) to |make sure (?:to|you) )?(?:hold|press|unplug"
             r"|soak|rinse|preheat|let it|leave it|turn it off and)\b", 1.0),
            (r"\b(?:first|step \d)\b.*\b(?:then|after that|next)\b", 2.0),
            (r"\b(?:how to|recipe|works every time|a tip|tip:)\b", 1.0),
        ],
        "error": [
            (r"\b(?:error|fault|bug|crash(?:ed|es)?|broke|broken|failed|fails|failing"
             r"|doesn'?t work|didn'?t work|stopped working|won'?t (?:start|turn on|work|connect)"
             r"|keeps (?:failing|crashing|beeping|turning off|dropping|tripping))\b", 2.0),
            (r"\b(?:tripped|dead|died|deleted|lost|jammed|clogged|flooded|blew|blown|cracked"
             r"|scratched|logged me out|froze|freezes|overflowed|melted|ran out)\b", 2.0),
            (r"\b(?:didn'?t|doesn'?t|won'?t|wouldn'?t) (?:start|turn on|charge|connect|drain"
             r"|print|save|sync|open|close|lock|heat|cool|spin)\b", 2.0),
            (r"\b(?:paid|charged|bought|ordered|booked)\b[^.]{0,40}\btwice\b", 2.0),
            (r"\b(?:oops|whoops|again|twice)\b", 0.5),
            (r"\b(?:mistake|by accident|accidentally|messed up|screwed up|ruined|burn(?:ed|t)"
             r"|stained|shrank|leak(?:ed|s|ing)|overcharged|wrong)\b", 2.0),
            (r"\b(?:don'?t|never|do not) (?:\w+ ){0,3}again\b", 1.5),
            (r"\b(?:last time|didn'?t|wasn'?t|turned out)\b", 0.5),
            (r"\b(?:error code|code [a-z]?\d+|[a-z]\d{1,3} error)\b", 1.0),
        ],
    },
    "pt": {
        "fact": [
            (rf"\b{_MEU} [\w']+(?: [\w']+){{0,3}} (?:e|sao|era|foi|mora|moram|trabalha|tem"
             r"|se chama|chama|nasceu|faz|estuda|esta|vai|toma|fica|comeca)\b", 2.0),
            (r"\b(?:eu )?(?:moro|morei|trabalho|trabalhei|nasci|cresci|estudo|estudei|falo"
             r"|dirijo|costumo)\b", 2.0),
            (r"\b(?:eu )?tenho (?:um|uma|dois|duas|tres|\d+|dois|nenhum|nenhuma) \w+", 2.0),
            (r"\bsou (?:um|uma|alergic\w*|intolerante|vegetarian\w*|vegan\w*|diabetic\w*"
             r"|casad\w*|solteir\w*|divorciad\w*|aposentad\w*|de|do|da|formad\w*|professor\w*"
             r"|enfermeir\w*|medic\w*|engenheir\w*|advogad\w*|canhot\w*)\b", 2.5),
            (r"\b(?:aniversario|nasceu|se chama|anos de idade|alergi\w*|intolerante|mora (?:em"
             r"|no|na)|trabalha (?:na|no|em|como)|endereco|tipo sanguineo|numero do sapato)\b",
             1.5),
            (rf"\b(?:tod[oa]s? (?:o |a |os |as )?(?:dia|manha|noite|semana|mes|ano|{_DAYS_PT})"
             rf"|aos {_DAYS_PT}|as {_DAYS_PT}|nas {_DAYS_PT})\b", 1.0),
            (r"\b(?:ele|ela|eles|elas|a gente) (?:mora|moram|tem|trabalha|trabalham|estuda)\b",
             1.0),
            (r"\b(?:comeca|abre|fecha|termina|vence) (?:as|a|no|na|todo|toda)\b", 1.5),
            (r"\b(?:e|sao|era) (?:o |a |os |as )?(?:meu|minha|meus|minhas|nosso|nossa|nossos"
             r"|nossas)\b", 2.0),
            (r"\bfaz \d+ anos\b", 2.0),
            (r"\b(?:fica|ficam|mora|moram|esta guardad\w*) (?:no|na|nos|nas|com|embaixo|atras"
             r"|dentro|em)\b", 1.5),
            (r"\b(?:se mudou|nos mudamos|mudamos|me mudei|casou|casamos|me casei|se formou"
             r"|me formei|se aposentou|me aposentei|dou aula|trabalho com)\b", 2.0),
            (r"\b(?:19|20)\d\d\b", 1.0),
        ],
        "preference": [
            (r"\b(?:eu )?(?:prefiro|adoro|amo|(?<!com )(?<!de )(?<!o )gosto|odeio|detesto|curto"
             r"|nao gosto|nao curto|nao suporto|nao aguento|nao como|nao bebo)\b", 2.5),
            (r"\b(?:favorit\w*|preferid\w*|sou fa|fa de)\b", 2.5),
            (r"\b(?:suas|as) (?:respostas|mensagens) (?:curtas|longas|mais)\b", 2.5),
            (r"\bnas (?:suas )?(?:respostas|mensagens)\b", 2.0),
            (r"\b(?:nao|nunca) me (?:manda|mande|liga|ligue|acorda|acorde|chama|chame|lembra"
             r"|lembre|marca|marque|sugere|sugira)\b", 2.5),
            (r"\b(?:e|sao) (?:o|a|os|as) (?:melhor|pior)(?:es)?\b", 2.0),
            (r"\b(?:por favor,? )?(?:sempre|nunca) (?:me )?(?:chame|responda|fale|use|escreva"
             r"|mande|lembre|sugira|marque|pe[cç]a)\b", 2.5),
            (r"\b(?:me chama de|me chame de|pode me chamar de|quero que voce|gosto que voce"
             r"|tomo (?:meu|o) cafe|meu cafe)\b", 2.5),
            (r"\b(?:doce demais|apimentad\w* demais|muito cedo pra mim)\b", 1.0),
        ],
        "decision": [
            (r"\b(?:decidi|decidimos|resolvi|resolvemos|combinamos|combinei|escolhemos|escolhi"
             r"|optamos|optei|fechamos|fechei|definimos|defini"
             r"|ficou (?:decidido|combinado|definido))\b", 3.0),
            (r"\b(?:vai|vao) ficar (?:na|no|nas|nos|com|em)\b", 2.0),
            (r"\b(?:decisao|definido|combinado)\b", 2.0),
            (r"\b(?:a partir de (?:agora|hoje|amanha|segunda|semana|do|da|\w+)|daqui (?:pra|para)"
             r" frente|de agora em diante|de hoje em diante)\b", 2.5),
            (r"\b(?:vamos|vou|a gente vai) (?:usar|comprar|trocar|mudar|comecar|parar|ficar"
             r"|vender|cancelar|contratar|pintar|reformar|assinar|fazer a)\b", 2.0),
            (r"\b(?:nao vamos mais|nao vou mais|o plano e|nao (?:vamos|vou) (?:comprar|usar"
             r"|renovar)|cancelei|cancelamos)\b", 2.0),
        ],
        "skill": [
            (r"\b(?:o|a) (?:segredo|truque|macete|jeito|dica|melhor jeito|manha)"
             r" (?:e|de|para|pra|do|da)\b", 2.5),
            (r"\b(?:eu )?sei (?!se|que|la|nao|onde|quando|como|qual|quem|disso|nada)"
             r"\w+(?:ar|er|ir)\b", 2.5),
            (r"\b(?:sei|aprendi a|consigo) (?:tocar|cozinhar|fazer|falar|dirigir|nadar|costurar"
             r"|tricotar|programar|consertar|cantar|dancar)\b", 2.5),
            (r"^(?:para|pra|se quiser) \w+(?:ar|er|ir)\b[^,]{0,60},", 2.5),
            (rf"\b(?:quando|se|sempre que) [^,]{{3,60}}, (?:e so |basta |dai )?(?:{_IMPERATIVE_PT})"
             r"\b", 2.5),
            (rf"^(?:{_IMPERATIVE_PT}) \w+.*\b(?:e|depois|ate|antes|que|assim)\b", 2.0),
            (r"\b(?:da (?:pra|para)|voce pode|fica (?:muito )?mais facil(?: de)?) (?:\w+ )?"
             r"(?:limpar|tirar|consertar|fazer|usar|congelar|resolver|destravar|ralar|descascar"
             r"|guardar|conservar)\b", 2.0),
            (r"\bdeixa (?:o|a|os|as) \w+ (?:com gosto|mais|crocante|macio|fofo|sequinho)", 2.0),
            (r"\b(?:basta|e so (?:apertar|segurar|colocar|usar|ligar|desligar|deixar|tirar)"
             r"|tem que (?:apertar|segurar|deixar|colocar|tirar)|deixa de molho)\b", 1.5),
            (r"\b(?:primeiro)\b.*\b(?:depois|em seguida|dai)\b", 2.0),
            (r"\b(?:como fazer|receita|funciona sempre|uma dica)\b", 1.0),
        ],
        "error": [
            (r"\b(?:erro|defeito|deu pau|deu problema|quebrou|quebrad\w*|falhou|falha|travou"
             r"|travando|nao funciona|nao funcionou|parou de funcionar|nao liga|nao ligou|pifou"
             r"|estragou|vazando|vazou|queimou|desarm\w*|nao pegou|arriad\w*|descarreg\w*"
             r"|apagou|deslogou|perdi|entupiu|entupid\w*|inundou|rachou|derreteu)\b", 2.0),
            (r"\b(?:paguei|cobraram|comprei|pedi|marquei)\b[^.]{0,40}\bduas vezes\b", 2.0),
            (r"\b(?:ops|de novo|duas vezes)\b", 0.5),
            (r"\b(?:cai\b.{0,20}\btoda hora|vive (?:caindo|travando|quebrando|desligando)"
             r"|fica (?:caindo|travando|desligando|dando erro))\b", 2.0),
            (r"\b(?:errei|me enganei|por engano|sem querer|manchou|encolheu|cobraram errado"
             r"|errad\w*)\b", 2.0),
            (r"\b(?:nunca mais|nao (?:\w+ ){0,3}de novo)\b", 1.5),
            (r"\b(?:da ultima vez|acabou sendo)\b", 0.5),
            (r"\b(?:codigo (?:de erro )?[a-z]?\d+|erro [a-z]?\d+)\b", 1.0),
        ],
    },
}

EPHEMERAL: dict[str, list[tuple[str, float]]] = {
    "en": [
        (r"\b(?:right now|at the moment|just now|currently|in a (?:minute|sec|bit|moment)"
         r"|brb|be right back|on my way|omw|running late)\b", 2.0),
        (r"\b(?:now|today|tonight|this (?:morning|afternoon|evening)|later|soon)\b", 1.0),
        (r"\bi(?:'m| am) (?:eating|having|cooking|driving|heading|going|leaving|at|in|on"
         r"|watching|taking|about to|so|feeling|tired|hungry|sleepy|bored|busy|home|back|off"
         r"|out|stuck|waiting|walking|sitting|making|doing|getting|finishing|bit)\b", 1.5),
        (r"\b(?:just (?:got|woke|finished|arrived)|gonna|getting ready|finally)\b", 1.0),
        (r"^(?:heading|going|leaving|off|walking|driving|running|taking|getting|on the)\b", 1.5),
        (r"\b(?:back in|be there in|be home in|see you in) \d+", 2.0),
        (r"\b(?:is|are) (?:here|\w+ing)\b", 1.0),
        (r"\b(?:set a timer|turn (?:on|off) the|remind me|play some|what'?s the weather)\b",
         1.5),
        # a one-off story: past tense, yesterday, all day
        (r"\b(?:was|were|had|got|went|did|happened|talked|yesterday|last (?:night|week)"
         r"|all day|on the way|there was|there were)\b", 1.0),
    ],
    "pt": [
        (r"\b(?:agora|agorinha|neste momento|nesse momento|daqui a pouco|ja ja|to indo"
         r"|estou indo|to saindo|to chegando)\b", 2.0),
        (r"\b(?:hoje|hj|hoje a noite|esta noite|essa noite|mais tarde|amanha cedo)\b", 1.0),
        (r"\b(?:to|tou|estou|ta|esta) (?:comendo|almocando|jantando|saindo|chegando|no|na|em"
         r"|com|cansad\w*|morrendo|indo|voltando|dirigindo|assistindo|fazendo|esperando"
         r"|preso|presa|sem|meio|muito|acabando|tomando|terminando|atrasad\w*|chovendo)\b", 1.5),
        (r"\b(?:to|tou|estou|ta|esta|estamos|tamo|tamos) \w+(?:ando|endo|indo)\b", 1.5),
        (r"\bfinalmente\b", 1.0),
        (r"^\w+(?:ando|endo|indo)\b", 1.5),
        (r"\b(?:volto em|chego em|to ai em|estou ai em) \d+", 2.0),
        (r"\b(?:chegou|chegaram)\b", 1.5),
        (r"\b(?:foi|foram|ficou|ficamos|fomos|tinha|teve|veio|aconteceu|ontem|o dia todo"
         r"|na volta|\w{2,}(?:aram|eram|iram))\b", 1.0),
        (r"\b(?:acabei de|acabou de|vou (?:sair|dormir|tomar banho|almocar|jantar|deitar))\b",
         1.0),
        (r"\b(?:liga a|desliga a|liga o|desliga o|poe um timer|coloca um timer|me lembra"
         r"|toca (?:uma|um|a|o))\b", 1.5),
    ],
}

#: words that say which language a sentence is in ("to", "no", "do", "as" are in both)
STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "the an is are was were i i'm my our we you your it it's this that of and with for"
        " on at from have has don't can't will would".split()
    ),
    "pt": frozenset(
        "o os um uma e eh de da dos das em na nos nas com pra para pro eu meu minha"
        " nosso nossa voce vc nao que tem ta tou esta estou sao foi".split()
    ),
}

#: a message made only of these words (and laughter) says nothing worth keeping
FILLER_WORDS = frozenset(
    """
    ok okay okk k kk yes yeah yep yup no nope nah sure thanks thank you thx ty tks much so very
    lot a lots cheers great nice cool awesome perfect fine good morning night evening afternoon
    hi hello hey bye see ya later cya yo alright right got it understood sounds gotcha indeed
    wow oh ah omg lol lmao rofl haha hahaha hehe np welcome please sorry oops hmm hm mhm uh um
    amazing love lovely true exactly totally absolutely and you too the same to all well done
    sim nao nada valeu vlw obrigado obrigada brigado brigada obg muito muita mto show top
    massa legal beleza blz bom boa dia tarde noite oi ola opa eai e ai tchau falou flw ate mais
    logo entendi entendido certo claro com certeza tranquilo tranquila fechado pode deixar
    isso ai tudo bem bom tb tbm tambem voce vc pra ti pra voce perfeito otimo otima demais
    nossa uau eita vixe caramba poxa puxa hum hmmm aham uhum tmj rs rsrs kkk kkkk de nada
    desculpa foi mal amei lindo linda que the
    """.split()
)
LAUGH = r"(?:k{2,}|(?:ha){2,}h?|(?:he){2,}h?|(?:hi){2,}h?|(?:rs){1,}|(?:ks){2,}k?|(?:hua)+)"
INTERROGATIVES = (
    r"^(?:what|when|where|who|whom|whose|why|how|which|can you|could you|would you|will you"
    r"|do you|did you|does|is it|are you|is there|should i|shall we|any idea"
    r"|o que|oq|que horas|quando|onde|cade|quem|por que|porque|pq|como|qual|quais|quanto"
    r"|voce (?:pode|sabe|acha|lembra)|vc (?:pode|sabe|acha|lembra)|sera que|tem como|sabe)\b"
)
NOTE_MARKERS = (
    r"\b(?:remember (?:that|this)|please remember|note that|make a note|for the record"
    r"|just so you know|fyi|keep in mind|lembra que|lembre que|lembre-se|anota (?:ai|que|isso)"
    r"|guarda isso|so pra constar|pra voce saber|fica sabendo)\b"
)

# -- secrets ---------------------------------------------------------------------------------

#: credential formats, matched on the original text (case matters), each with its kind
_SECRET_FORMATS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("api key", r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}"),
        ("api key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}"),
        ("token", r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
        ("token", r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
        ("token", r"\bglpat-[A-Za-z0-9_-]{16,}"),
        ("token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        ("aws key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"),
        ("api key", r"\bAIza[0-9A-Za-z_-]{30,}"),
        ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ("private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
        ("password in url", r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s/@]+@"),
        ("id number", r"\b\d{3}\.\d{3}\.\d{3}-\d{2}\b"),  # Brazilian CPF
        ("id number", r"\b\d{3}-\d{2}-\d{4}\b"),  # US social security number
    )
]

#: up to 30 characters of anything but a sentence end ("gov.br" is not one)
_GAP = r"(?:[^?!\n.]|\.(?=\S)){0,30}?"
_EN_KEYS = (
    r"password|passwd|passcode|passphrase|pin(?: code| number)?|api[ _-]?key|access[ _-]?token"
    r"|auth[ _-]?token|bearer token|secret[ _-]?key|private key|recovery (?:code|phrase|key)"
    r"|seed phrase|security (?:code|question|answer)|cvv|cvc|2fa code|otp|verification code"
    r"|(?:alarm|gate|door|garage|safe|locker|lock|entry|building) code|token|maiden name"
)
_PT_KEYS = (
    r"senha|pin|codigo (?:de acesso|d[oa] (?:alarme|portao|porta|cofre|cadeado|predio))"
    r"|chave (?:da|de) (?:api|acesso)|chave secreta|token|cvv|codigo de (?:seguranca|verificacao)"
    r"|frase de recuperacao|pergunta (?:de|secreta)|resposta secreta|nome de solteira da mae"
)

#: "my password is ...", "minha senha é ...", "api_key=...", on folded text
_SECRET_PHRASES = re.compile(
    "|".join(
        (
            rf"\b(?:{_EN_KEYS})\b{_GAP}(?:\bis\b|\bwas\b|:|=)\s*(?!(?:on|in|under|inside"
            r"|written|saved|stored|behind|at|somewhere|the same|in the|expired|wrong|not"
            r"|too|changed|reset)\b)\S",
            rf"\b(?:{_PT_KEYS})\b{_GAP}(?:\be\b|\beh\b|\bera\b|:|=)\s*(?!(?:a mesma|o mesmo"
            r"|no|na|em|embaixo|atras|dentro|errad\w*|nova|novo|fraca|forte|muito|igual)\b)\S",
            # a keyword followed straight by a value that has a digit or a symbol in it
            # ("error code E119" is a fault, not a secret)
            r"(?<!error )(?<!erro )(?<!fault )\b(?:password|senha|pin|passcode|code|codigo)"
            r"\s+(?=\S*[\d#@!$%&*])\S{4,}",
            r"\b(?:login|credentials|credenciais|usuario e senha|user and password)\b"
            r"[^?!\n]{0,40}[:=]\s*\S+\s*[/,]\s*\S",
            r"\b(?:cartao|card)\b[^.?!\n]{0,20}\b\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{1,7}\b",
        )
    )
)

_LONG_TOKEN = re.compile(r"[A-Za-z0-9+/_=-]{24,}")
_CARD = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")


def _entropy(token: str) -> float:
    counts: dict[str, int] = {}
    for ch in token:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())


def _luhn(digits: str) -> bool:
    total = 0
    for index, ch in enumerate(reversed(digits)):
        value = int(ch) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _random_looking(token: str) -> bool:
    """A long token mixing letters and digits with high entropy: a key, not a word."""
    stripped = token.strip("=-_")
    has_digit = any(ch.isdigit() for ch in stripped)
    has_alpha = any(ch.isalpha() for ch in stripped)
    if not (has_digit and has_alpha) or len(stripped) < 24:
        return False
    return _entropy(stripped) >= 3.5


def secret_kind(text: str) -> str | None:
    """What kind of credential ``text`` carries, or None: a known key format, a "password
    is" phrase, a card number, or a long high-entropy token."""
    for kind, pattern in _SECRET_FORMATS:
        if pattern.search(text):
            return kind
    if _SECRET_PHRASES.search(fold(text)):
        return "credential"
    if any(_random_looking(match.group(0)) for match in _LONG_TOKEN.finditer(text)):
        return "high-entropy string"
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and _luhn(digits):
            return "card number"
    return None


def looks_secret(text: str) -> bool:
    """True when ``text`` carries a password, key, token or card number."""
    return secret_kind(text) is not None

#: a category wins outright from this score, even against ephemeral markers
STRONG = 2.0
#: below this a statement without any pattern is too thin to keep
MIN_WORDS_FOR_FALLBACK = 6


@dataclass(frozen=True, slots=True)
class Verdict:
    """The policy's decision for one candidate sentence."""

    category: Category | None  # None = rejected
    reason: str
    confidence: float

    @property
    def accepted(self) -> bool:
        return self.category is not None


def fold(text: str) -> str:
    """Lower-case, accent-free, curly quotes straightened, whitespace collapsed."""
    decomposed = unicodedata.normalize("NFKD", text.replace("’", "'").replace("‘", "'"))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.lower().split())


_Compiled = list[tuple[re.Pattern[str], float]]


def _compile(table: dict[str, dict[str, list[tuple[str, float]]]]) -> dict[str, _Compiled]:
    merged: dict[str, _Compiled] = {}
    for by_label in table.values():
        for label, rules in by_label.items():
            merged.setdefault(label, []).extend(
                (re.compile(pattern), weight) for pattern, weight in rules
            )
    return merged


_RULES_BY_LANG = {lang: _compile({lang: RULES[lang]}) for lang in RULES}
_EPHEMERAL_BY_LANG = {lang: _compile({lang: {"ephemeral": EPHEMERAL[lang]}})["ephemeral"]
                      for lang in EPHEMERAL}
_CATEGORY_RULES = _compile(RULES)
#: on equal scores the specific categories win over the generic "fact"
_TIE_ORDER: tuple[Category, ...] = ("preference", "decision", "skill", "error", "fact")
_EPHEMERAL_RULES = _compile({lang: {"ephemeral": rules} for lang, rules in EPHEMERAL.items()})[
    "ephemeral"
]


def guess_language(words: list[str]) -> str | None:
    """The language whose stopwords clearly dominate ``words``, or None when unsure."""
    counts = {lang: sum(word in stop for word in words) for lang, stop in STOPWORDS.items()}
    ranked = sorted(counts.items(), key=lambda item: item[1], reverse=True)
    if ranked[0][1] > 0 and ranked[0][1] > ranked[1][1]:
        return ranked[0][0]
    return None
_WORD = re.compile(r"[a-z0-9']+")
_LAUGH = re.compile(LAUGH)
_INTERROGATIVE = re.compile(INTERROGATIVES)
_NOTE = re.compile(NOTE_MARKERS)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\s*\n+\s*|;\s+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def split_candidates(text: str) -> list[str]:
    """The sentences of a message worth classifying: split on sentence ends and new lines,
    bullets stripped, fragments without a letter or digit dropped."""
    candidates = []
    for piece in _SENTENCE_END.split(text):
        sentence = _BULLET.sub("", piece).strip()
        if any(ch.isalnum() for ch in sentence):
            candidates.append(sentence)
    return candidates


def _score(folded: str, rules: _Compiled) -> tuple[float, str]:
    total = 0.0
    best_weight = 0.0
    evidence = ""
    for pattern, weight in rules:
        match = pattern.search(folded)
        if match:
            total += weight
            if weight > best_weight:
                best_weight, evidence = weight, match.group(0).strip()
    return total, evidence


def _is_trivial(words: list[str]) -> bool:
    return all(word in FILLER_WORDS or _LAUGH.fullmatch(word) for word in words)


def _is_question(raw: str, folded: str) -> bool:
    """Ends with "?", or opens with a question word and is not a "when X, do Y" clause."""
    if raw.rstrip().endswith("?"):
        return True
    return bool(_INTERROGATIVE.match(folded)) and ", " not in folded


def _confidence(score: float, ephemeral: float) -> float:
    return round(max(0.3, min(0.95, 0.45 + 0.12 * score - 0.08 * ephemeral)), 2)


def classify(text: str) -> Verdict:
    """Classify one candidate sentence as a durable category, or reject it with a reason."""
    kind = secret_kind(text)
    if kind:
        return Verdict(None, f"rejected: secret ({kind})", 0.99)
    folded = fold(text)
    words = _WORD.findall(folded)
    if not words:
        return Verdict(None, "rejected: trivial (no words)", 0.95)
    if _is_trivial(words):
        return Verdict(None, "rejected: trivial", 0.9)

    lang = guess_language(words)
    rules = _RULES_BY_LANG[lang] if lang else _CATEGORY_RULES
    scores = {label: _score(folded, rules.get(label, [])) for label in CATEGORIES}
    best: Category = max(_TIE_ORDER, key=lambda label: scores[label][0])
    best_score, evidence = scores[best]
    ephemeral, ephemeral_evidence = _score(
        folded, _EPHEMERAL_BY_LANG[lang] if lang else _EPHEMERAL_RULES
    )
    noted = bool(_NOTE.search(folded))

    if _is_question(text, folded) and not noted:
        if ephemeral >= 1.5 and best_score < STRONG:
            return Verdict(None, f"rejected: ephemeral ('{ephemeral_evidence}')", 0.7)
        return Verdict(None, "rejected: trivial (a question states nothing)", 0.8)
    if best_score >= STRONG and best_score >= ephemeral:
        return Verdict(best, f"{best}: '{evidence}'", _confidence(best_score, ephemeral))
    if ephemeral > 0:
        return Verdict(None, f"rejected: ephemeral ('{ephemeral_evidence}')", 0.75)
    if best_score > 0:
        return Verdict(best, f"{best}: '{evidence}'", _confidence(best_score, 0))
    if noted:
        return Verdict("fact", "fact: asked to remember", 0.6)
    if len(words) >= MIN_WORDS_FOR_FALLBACK and not _is_question(text, folded):
        return Verdict("fact", "fact: plain statement", 0.35)
    return Verdict(None, "rejected: trivial (too thin to keep)", 0.6)
