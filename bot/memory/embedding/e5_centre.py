"""The texts whose mean vector e5's vectors are centred on (:class:`E5Embedder`).

multilingual-e5-small puts every text in one narrow cone: any two chat messages have a cosine
of 0.75 to 0.9. Taking away the mean of ordinary messages' vectors before normalising again
spreads them as MiniLM's are (an unrelated pair near 0.2, an answer and its question near
0.35), so one floor and one set of weights serve both models. These are ordinary messages of
a household's chats in both languages, written for this, about nothing in particular; what is
measured on (the conversation sets) is not among them. Changing them changes every stored
vector: the embedder's name must change with them (it is stored beside the vectors).
"""

from __future__ import annotations

__all__ = ["CENTRE_TEXTS"]

CENTRE_TEXTS: tuple[str, ...] = (
    "Morning! Did you sleep well?",
    "I'm running a bit late today, the bus never came.",
    "We had pasta for dinner again, nobody complained.",
    "Can you remind me what I said about the weekend?",
    "My sister called last night and we talked for an hour.",
    "The weather turned cold all of a sudden.",
    "Work was fine, just a lot of meetings.",
    "I finally finished that book, the ending was strange.",
    "Thanks, that helps a lot.",
    "Not sure yet, I'll decide tomorrow.",
    "The kids have a school trip on Friday.",
    "I went for a run along the river before work.",
    "Haha, that's exactly what my dad would say.",
    "We're thinking about repainting the kitchen in spring.",
    "The doctor said it's nothing serious, just rest.",
    "I need to buy a present for my friend's birthday.",
    "Our neighbour's dog kept barking all night.",
    "I've been trying to cook more at home lately.",
    "What do you think I should do about it?",
    "The train was packed this morning, I had to stand.",
    "I'm so tired, it has been a long week.",
    "We booked a small cottage by the sea for August.",
    "My boss wants the report by Thursday.",
    "I planted tomatoes and basil on the balcony.",
    "Bom dia! Dormiste bem?",
    "Hoje estou um bocado atrasada, o autocarro não passou.",
    "Ao jantar fizemos sopa e ninguém se queixou.",
    "Lembras-te do que eu disse sobre o fim de semana?",
    "A minha mãe ligou ontem e falámos imenso tempo.",
    "Está a chover desde manhã, que preguiça.",
    "O trabalho correu bem, só muitas reuniões.",
    "Acabei finalmente aquele livro, o final foi estranho.",
    "Obrigado, ajudou muito.",
    "Ainda não sei, decido amanhã.",
    "Os miúdos têm uma visita de estudo na sexta.",
    "Fui correr à beira-rio antes do trabalho.",
    "Estamos a pensar pintar a sala na primavera.",
    "A médica disse que não é nada de grave.",
    "Preciso de comprar um presente para o aniversário da minha amiga.",
    "O cachorro do vizinho latiu a noite toda.",
    "Tenho tentado cozinhar mais em casa.",
    "O que achas que devia fazer?",
    "O metrô estava lotado hoje de manhã.",
    "Estou cansadíssimo, foi uma semana longa.",
    "Reservámos uma casinha perto da praia para agosto.",
    "O meu chefe quer o relatório até quinta.",
    "Plantei manjericão e tomates na varanda.",
    "Vamos ver no que dá, depois conto-te.",
)
