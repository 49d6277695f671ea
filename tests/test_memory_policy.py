"""The write policy keeps durable facts, rejects chatter and never lets a secret through."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from bench.policy_accuracy import SECRETS_SET, load_secrets
from bot.memory.policy import Verdict, classify, fold, looks_secret, split_candidates
from bot.memory.secrets.detector import redact_secrets

LABELLED = Path(__file__).parent / "data" / "policy_labelled.tsv"
DURABLE = {"fact", "preference", "decision", "skill", "error"}


def _labelled() -> list[tuple[str, str, str]]:
    with LABELLED.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(row["label"], row["lang"], row["text"]) for row in reader]


SECRETS = [
    "my password is hunter2",
    "My password for the bank app is Tulip!2024",
    "minha senha é abc123",
    "Minha senha do banco é Tulipa!2024",
    "a senha do wifi é girassol2020",
    "here's my key sk-proj-4fT9xQ2LmN8vR7pK3sW1yZ6bH0cJ5dE",
    "sk-ant-api03-Qw3rTy7UiOp9AsDfGh2JkLzXcVbNm",
    "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "xoxb-2048-1024-Zx9Yw8Vu7Ts6Rq5Po4",
    "AKIAIOSFODNN7EXAMPLE",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJtYXJpYSJ9.dBjftJeZ4CVPmB92K27uhbUJU1p1r",
    "the deploy token is 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d",
    "use Zk8pQ2vX9mL4nR7tW1yB6cH3jF5gD0sA for the webhook",
    "My PIN is 4821.",
    "O código do alarme é 7391.",
    "my card number is 4111 1111 1111 1111",
    "Meu CPF é 123.456.789-09",
    "postgres://admin:s3cr3t@db.local/app",
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    "netflix login is bea@mail.com, password Pipoca#55",
    "minha senha do gov.br é Brasil@2023",
    "API_KEY=abcd1234efgh5678",
    "lembra que a senha do email é batata123",
]


@pytest.mark.parametrize("text", SECRETS)
def test_every_secret_is_rejected(text: str) -> None:
    assert looks_secret(text)
    verdict = classify(text)
    assert not verdict.accepted
    assert verdict.reason.startswith("rejected: secret")


def test_every_labelled_secret_is_rejected() -> None:
    secrets = [text for label, _, text in _labelled() if label == "secret"]
    assert len(secrets) >= 30
    leaked = [text for text in secrets if classify(text).accepted or not looks_secret(text)]
    assert leaked == []


@pytest.mark.parametrize(
    "text",
    [
        "I set Petunia_2019 as my gmail password",
        "use Kiwi*88 as my gmail password",
        "pw for the router is admin!Rt55",
        "wifi: Girassol2020",
        "the wifi key is Seagull-4471",
        "CVV 737",
        "o cvv do cartão novo é 090",
        "my IBAN is GB82 WEST 1234 5698 7654 32",
        "meu cpf 11144477735",
        "my password is below.\nhunter2!",
        "Minha senha está abaixo.\nJacaré#2020",
    ],
)
def test_phrasings_that_used_to_slip_through(text: str) -> None:
    assert looks_secret(text)
    assert not classify(text).accepted
    assert all(not looks_secret(sentence) for sentence in split_candidates(text))
    assert "hunter2" not in " ".join(split_candidates(text))


def test_the_secrets_set_is_large_and_split() -> None:
    rows = load_secrets(SECRETS_SET)
    secrets = [row for row in rows if row.label == "secret"]
    ordinary = [row for row in rows if row.label == "ordinary"]
    assert len(secrets) >= 300
    assert len(ordinary) >= len(secrets)
    assert {row.lang for row in secrets} == {"en", "pt"} == {row.lang for row in ordinary}
    assert {row.part for row in rows} == {"tune", "held"}
    assert sum(row.part == "held" for row in rows) >= 200


def test_every_secret_of_the_tuning_part_is_caught() -> None:
    rows = [row for row in load_secrets(SECRETS_SET) if row.part == "tune"]
    missed = [row.text for row in rows if row.label == "secret" and not looks_secret(row.text)]
    assert missed == []


def test_every_ordinary_sentence_of_the_tuning_part_is_kept() -> None:
    rows = [row for row in load_secrets(SECRETS_SET) if row.part == "tune"]
    flagged = [row.text for row in rows if row.label == "ordinary" and looks_secret(row.text)]
    assert flagged == []


@pytest.mark.parametrize(
    "text",
    [
        "I changed the wifi password yesterday.",
        "The wifi password is on the sticker under the router.",
        "A senha do wifi fica no caderno da cozinha.",
        "I need to reset my password for the school portal",
        "https://example.com/recipes/chocolate-cake-with-walnuts",
        "We live at number 1234 on Rua das Flores.",
    ],
)
def test_talk_about_passwords_is_not_a_secret(text: str) -> None:
    assert not looks_secret(text)


@pytest.mark.parametrize(
    "text",
    [
        "ok",
        "thanks!",
        "valeu",
        "kkkk",
        "hahaha",
        "👍",
        "😂😂😂",
        "Bom dia!",
        "obrigada!!",
        "What time is it?",
        "Que horas são?",
        "got it, thanks",
        "rsrs",
        "tudo bem e você?",
    ],
)
def test_trivia_is_rejected(text: str) -> None:
    verdict = classify(text)
    assert not verdict.accepted
    assert verdict.reason.startswith("rejected: trivial")


@pytest.mark.parametrize(
    "text",
    [
        "I'm eating now",
        "estou almoçando agora",
        "Estou almocando agora",
        "Running late, be there in 10.",
        "tô indo pro mercado agora",
        "Just got home.",
        "Acabei de chegar em casa.",
        # a numbered label is no instruction: "Turn 3:" does not tell anyone to turn
        "Turn 3: today I watered the tomatoes and fixed the gate.",
        "Passo 2: hoje reguei os tomates e arranjei o portão.",
    ],
)
def test_ephemeral_is_rejected(text: str) -> None:
    verdict = classify(text)
    assert not verdict.accepted
    assert verdict.reason.startswith("rejected: ephemeral")


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("My daughter's name is Luna.", "fact"),
        ("Minha filha se chama Luna.", "fact"),
        ("I'm allergic to shellfish.", "fact"),
        ("Sou alérgica a camarão.", "fact"),
        ("Sou alergica a camarao.", "fact"),
        ("I prefer tea over coffee.", "preference"),
        ("Prefiro chá a café.", "preference"),
        ("I take my coffee without sugar.", "preference"),
        ("Please always answer me in Portuguese.", "preference"),
        ("We decided to paint the kitchen green.", "decision"),
        ("Decidimos pintar a cozinha de verde.", "decision"),
        ("From now on groceries are on Saturdays.", "decision"),
        ("A partir de agora as compras são no sábado.", "decision"),
        ("To unclog the sink, pour baking soda and then vinegar.", "skill"),
        ("Turn 3 screws a quarter and then lift the panel.", "skill"),
        ("Pra desentupir a pia, joga bicarbonato e vinagre.", "skill"),
        ("The dishwasher keeps showing error E24.", "error"),
        ("A lava-louças fica dando erro E24.", "error"),
    ],
)
def test_clear_statements_get_the_right_category(text: str, category: str) -> None:
    verdict = classify(text)
    assert verdict.accepted
    assert verdict.category == category
    assert verdict.reason.startswith(f"{category}: ")
    assert 0.0 < verdict.confidence <= 1.0


def test_verdict_accepted_follows_category() -> None:
    assert Verdict("fact", "fact: x", 0.5).accepted
    assert not Verdict(None, "rejected: trivial", 0.9).accepted


def test_fold_removes_accents_and_case() -> None:
    assert fold("  Estou ALMOÇANDO   agora ") == "estou almocando agora"
    assert fold("Não é café") == "nao e cafe"
    assert fold("I’m") == "i'm"


def test_split_candidates() -> None:
    text = "Oi! Minha filha se chama Luna. Ela faz 7 anos em março?\n- Prefiro chá\n\n..."
    assert split_candidates(text) == [
        "Oi!",
        "Minha filha se chama Luna.",
        "Ela faz 7 anos em março?",
        "Prefiro chá",
    ]
    assert split_candidates("") == []
    assert split_candidates("👍 !!") == []


def test_accuracy_on_the_labelled_set() -> None:
    rows = _labelled()
    assert len(rows) >= 150
    assert sum(lang == "en" for _, lang, _ in rows) >= 70
    assert sum(lang == "pt" for _, lang, _ in rows) >= 70
    right = 0
    for label, _, text in rows:
        verdict = classify(text)
        if label in DURABLE:
            right += verdict.category == label
        else:
            right += not verdict.accepted and verdict.reason.startswith(f"rejected: {label}")
    accuracy = right / len(rows)
    print(f"policy accuracy: {accuracy:.3f} on {len(rows)} sentences")
    assert accuracy >= 0.85


def test_durable_versus_rejected_on_the_labelled_set() -> None:
    """What matters most for memory: keep what is durable, drop the rest."""
    rows = _labelled()
    kept_junk = [t for label, _, t in rows if label not in DURABLE and classify(t).accepted]
    dropped = [t for label, _, t in rows if label in DURABLE and not classify(t).accepted]
    assert len(kept_junk) <= len(rows) * 0.05, kept_junk
    assert len(dropped) <= len(rows) * 0.05, dropped


def test_an_error_code_is_not_a_secret_but_a_door_code_is() -> None:
    assert classify("The boiler shows error code E119 when the pressure drops.").accepted
    assert classify("O código de erro E119 aparece quando a pressão cai.").accepted
    assert not classify("The door code is 4821#").accepted


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("door code changed, it's now 2468 instead of 1357", ["2468", "1357"]),
        ("changed my phone pin from 2580 to 9174 today", ["2580", "9174"]),
        (
            "The number for my bank card is four... seven... one... nine. 4719. Don't lose it.",
            ["seven... one", "4719"],
        ),
        (
            "Two logins for the school portal: Emma is emma.r / Sunflower9 and Leo is leo.r / "
            "RocketMan12",
            ["Sunflower9", "RocketMan12"],
        ),
        (
            "the bitcoin wallet restores with tiger maple frost window cabin rural oxygen wheat "
            "jungle token museum brave",
            ["tiger maple", "museum brave"],
        ),
        ("cartão 5502 0934 7781 2205, validade 03/28, cvv 918", ["5502 0934", "03/28", "918"]),
        ("I set the hotel safe to our anniversary, 0614, in case I forget it", ["0614"]),
        ("gym padlock goes left to 12, right to 30, left to 7", ["right to 30"]),
        ("a palavra-passe do email é gatinho2020", ["gatinho2020"]),
        ("Trellis-Otter-91 -- that one's for the pharmacy portal", ["Trellis-Otter-91"]),
        ("can you keep my savings account number handy? it's 00123-4458-9921", ["4458"]),
        (
            "so the netflix password is um capital b blueberry nineteen eighty eight "
            "exclamation mark",
            ["blueberry", "nineteen eighty"],
        ),
        (
            "guest wifi changed, new one is SunnyDays2025 the old one was Pineapple88",
            ["Sunny", "88"],
        ),
        ("security question mothers maiden name, we put Kowalczyk not the real one", ["Kowal"]),
        ("first pet question answer is mr wobbles all lowercase", ["wobbles"]),
        ("milk, bin bags, wifi pw -> Harbour_Lights_42, batteries", ["Harbour"]),
        ("the school portal passwrod is Dinosaur_Rex9", ["Dinosaur"]),
        ("SENHA DO CELULAR DA BIA 170822 ELA ESQUECEU", ["170822"]),
        (
            "the wallet words: orbit velvet canyon hollow drip... no drift anchor lemon sugar "
            "frost pilot maple reward",
            ["velvet", "drift anchor", "maple reward"],
        ),
        ("keep my bank card PIN safe for me. It is 4 8 1 7. Thank you, Doris.", ["4 8 1 7"]),
        ("it's the same as hulu but with an exclamation mark, so Butterscotch22!", ["Butter"]),
        ("a senha é a mesma da netflix mas com 2024 no fim, fica Girassol2024", ["Girassol"]),
        ("Grandma's bank just texted her 491203 and she wants you to hold onto it", ["491203"]),
        ("the answer to 'city where you were born' is Walsall, not Birmingham", ["Walsall"]),
        ("chegou o código do MB WAY, 382116, guarda-mo", ["382116"]),
        ("I keep forgetting my netflix password. It is Rainbow77!", ["Rainbow77"]),
        ("do you know the wifi password here? mine is Seagull44", ["Seagull44"]),
        ("the bank wants a new password. I chose bluebell cottage", ["bluebell"]),
        ("Setting Leo's tablet screen time PIN to 2749 so he can't change it", ["2749"]),
        ("wifi at the cabin: Loon_Lake / northernlights88 oh sorry, it's NorthernLights88", ["88"]),
        ("pediu a senha do portal do condomínio, é Condo_Lx_1200. Nós levamos o bolo.", ["Condo"]),
        ("Se a central do alarme ligar, a contrassenha é jabuticaba.", ["jabuticaba"]),
        ("is Rainbow77 a strong enough password?", ["Rainbow77"]),
        ("should I change my pin from 1234? half the planet uses it", ["1234"]),
        ("Marta's phone unlocks with her birthday 1403, in case she forgets", ["1403"]),
        (
            "my seed phrase, in apple notes? it's ladder forest orbit canal velvet humble prize "
            "ozone tired magic shell arrow",
            ["forest", "shell arrow"],
        ),
        ("what if I enter the sim pin wrong? I think it's 7351 but not sure", ["7351"]),
        ('for the "city where your parents met" question I used Coimbra', ["Coimbra"]),
        (
            "Write this down somewhere safe: ||harvest amber lunar fix gossip twelve nurse bacon "
            "slender ozone vivid quote||",
            ["lunar", "vivid"],
        ),
        ("token do banco deu 771 340, digita aí rapidinho antes de expirar", ["771 340"]),
        ("the pin code of the card is 1234, for the delivery guy do not give it", ["1234"]),
    ],
)
def test_the_whole_value_is_withheld_however_it_is_said(text: str, values: list[str]) -> None:
    redacted = redact_secrets(text)
    assert all(value not in redacted for value in values), redacted
    assert "[secret withheld" in redacted


@pytest.mark.parametrize(
    "text",
    [
        "The locksmith said our lock is a Yale 3000.",
        "the safe in the hotel cost 300 euros",
        "I changed the door lock in 2019 and it still sticks",
        "o alarme toca às 0700",
        "O voo TP 1350 sai da porta 14 às 6h50",
        "O nome da rede wifi da casa da praia é CasaPraia_5G",
        "the code review is at 1500 tomorrow",
        "a bank that still runs on code from 1987",
        "I use a password manager called 1Password.",
        "my social worker is called Ana, she's lovely",
        "wifi name is SmithFamily_5G for the fast one",
        "the password is long, with a capital letter and an exclamation mark",
        "my security question is the name of my first school",
        "the new one is much faster than the old wifi",
        "a senha do banco mudou em 2024",
        "the guest wifi changed, the new one is called Casa-Guest",
        "guarda aí o número do pedido da Amazon: 702-4481937-5520113",
        "meu nick no Valorant é Luquinhas#BR1, me adiciona",
        "I lost my card. It was 2019 when I got it",
        "The alarm went off. It was 0700 and I was asleep",
        "I forgot the code for the bike lock. It is 300 metres from home",
        "I changed my password. It was a pain. It is longer now",
        "The password reset failed. It is 10:30 and I give up.",
        "My password manager is great. Mine is 1Password.",
        "I need a new password. I chose to write it down.",
        "Our Duolingo login streak is 365! one full year",
        "Code 404 just means the page is gone",
        "The paint Mia picked is #FF5733 orange honestly",
        "o e-mail de redefinição de senha não chegou, vê no spam pra mim?",
        "uma senha de 8 caracteres ainda é segura?",
        "Lembra-me de trocar a senha do email amanhã de manhã",
        "changed the password from home",
        "Is an 8-character password enough?",
        "the login page is weak on mobile, version 2.3b4 fixed it",
        "Dropping a pin: https://maps.google.com/?q=51.5033,-0.1196 meet at the café there",
        "Priya's parents' PIN code is 560034, it's just the Indian postal code for the parcel",
        "referência Multibanco da água: entidade 21312, ref. 123 456 789, valor 18,40 €",
        "I went to the market and bought fresh bread and cheese for the picnic with my friends",
        "Here is the shopping list: milk bread butter cheese coffee rice banana orange lemon "
        "sugar salt pepper",
        "A senha expirou. Coloquei lembrete no calendário.",
        "My password is fine. I chose Bitwarden because it's free.",
        "O banco pediu uma senha nova. Escolhi esperar até segunda.",
        "The combination of flavours was great. It was 1500 calories though.",
        "the new one is TP-Link AX55",
        "the new one is v2.3",
        "Is Python3 good enough for a login page?",
        "My password, honestly, who cares: nothing important there.",
        "In the app go to Settings -> Password -> Change.",
        "Security questions are silly: anyone can find my maiden name.",
        "The pin is capital of drama lol",
        "The PIN was um, like, hard to remember with the dash on the keypad.",
        "Setting the password policy to 90 days",
        "The garage opens with the remote from 2019.",
        "The pix app showed 1500 to pay",
        "Changed the PIN from 4 digits to 6 digits.",
        "Just texted the plumber, he comes at 1400, type of pipe is 22mm.",
    ],
)
def test_numbers_beside_security_words_are_kept(text: str) -> None:
    assert redact_secrets(text) == text
