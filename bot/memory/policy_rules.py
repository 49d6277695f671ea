"""The write policy's pattern tables: per language, which phrases mark each category.

Plain data, one list of ``(regex, weight)`` per label and language: :data:`RULES` for the five
durable categories, :data:`EPHEMERAL` for markers of the passing moment ("right now", "estou
almoçando"). Adding a language means adding its tables here, not code;
:mod:`bot.memory.policy` compiles them once, at import. Every pattern matches text as
:func:`fold` leaves it: lower case, no accents, straight quotes, single spaces, so "almoçando"
and "almocando" are one word.
"""

from __future__ import annotations

import unicodedata

__all__ = ["EPHEMERAL", "RULES", "fold"]


def fold(text: str) -> str:
    """Lower-case, accent-free, curly quotes straightened, whitespace collapsed."""
    if text.isascii():  # most messages: nothing to straighten or decompose
        return " ".join(text.lower().split())
    decomposed = unicodedata.normalize("NFKD", text.replace("’", "'").replace("‘", "'"))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.lower().split())


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

# The tables keep one rule to a line or two, the way they are read and reviewed.
# fmt: off
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
            (rf"^(?:{_IMPERATIVE_EN}) (?!\d+[:.)] )\w+.*\b(?:and|then|until|before|after"
             r"|so)\b", 2.0),
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
            (rf"^(?:{_IMPERATIVE_PT}) (?!\d+[:.)] )\w+.*\b(?:e|depois|ate|antes|que|assim)\b", 2.0),
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
# fmt: on
