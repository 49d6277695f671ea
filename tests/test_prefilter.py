"""The regex prefilter never changes what the patterns find (identity, memory policy); it only
skips work."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from bot.memory import policy
from bot.memory.policy_rules import fold
from bot.memory.prefilter import PatternSet, needles
from bot.persona.identity import detect
from bot.persona.identity.traits import EXPLICIT, FORMAL_MARKERS, SARCASM_MARKERS, SLANG

DATA = Path(__file__).parent / "data" / "policy_labelled.tsv"


def _corpus() -> list[str]:
    sentences = [
        part
        for line in DATA.read_text(encoding="utf-8").splitlines()
        for part in line.split("\t")
        if len(part) > 3
    ]
    sentences += [
        "Please be more concise, and don't use emojis.",
        "call me Scotty please",
        "Thanks, Ina!",
        "hey Nara",
        "seja mais direto, por favor, e me chama de Zé",
        "I'm a software engineer, you can be more technical",
        "oh great, just what i needed /s",
    ]
    # fragments of every needle glued into random text, to reach near-misses
    pieces = [
        needle
        for table in (_explicit_set(), detect._SARCASM, detect._SLANG, detect._FORMAL)
        for needle in table.needles
    ]
    rng = random.Random(7)
    for _ in range(400):
        words = rng.sample(pieces, 4) + rng.sample(["be", "you", "more", "a", "i", "the"], 2)
        rng.shuffle(words)
        sentences.append(" ".join(words))
    return [detect.fold_with_offsets(s)[0] for s in sentences]


def _explicit_set() -> PatternSet:
    return PatternSet([pattern for rows in EXPLICIT.values() for pattern, _k, _v in rows])


@pytest.mark.parametrize(
    "patterns",
    [
        [pattern for rows in EXPLICIT.values() for pattern, _k, _v in rows],
        [p for rows in SARCASM_MARKERS.values() for p in rows],
        list(SLANG.values()),
        list(FORMAL_MARKERS.values()),
    ],
    ids=["explicit", "sarcasm", "slang", "formal"],
)
def test_pattern_set_finds_exactly_what_every_regex_finds(patterns: list[str]) -> None:
    guarded = PatternSet(patterns)
    plain = [re.compile(p) for p in patterns]
    corpus = _corpus()
    hits = 0
    for text in corpus:
        expected = [(i, m.span()) for i, r in enumerate(plain) for m in r.finditer(text)]
        assert [(i, m.span()) for i, m in guarded.matches(text)] == expected, text
        assert guarded.any_match(text) == bool(expected)
        hits += bool(expected)
    assert hits > 0  # the corpus does reach the patterns


def test_memory_policy_rules_score_as_if_every_rule_ran() -> None:
    """The write policy's weighted rules go through one PatternSet per table: each label's
    score and evidence for every sentence of the labelled set are those of running every
    rule of that label."""
    tables = [*policy._RULES_BY_LANG.values(), policy._ALL_RULES]
    corpus = [fold(s) for s in DATA.read_text(encoding="utf-8").splitlines()]
    scored = 0
    for rules in tables:
        plain = list(zip(rules.patterns.regexes, rules.labels, rules.weights, strict=True))
        for folded in corpus:
            expected: dict[str, tuple[float, float, str]] = {}
            for regex, label, weight in plain:
                match = regex.search(folded)
                if match:
                    total, best, evidence = expected.get(label, (0.0, 0.0, ""))
                    if weight > best:
                        best, evidence = weight, match.group(0).strip()
                    expected[label] = (total + weight, best, evidence)
            want = {label: (total, evidence) for label, (total, _b, evidence) in expected.items()}
            assert policy._scores(folded, rules) == want, folded
            scored += bool(want)
    assert {"ephemeral", "preference", "skill"} <= set(policy._ALL_RULES.labels)
    assert scored > 100  # the corpus does reach the rules


def test_needles_are_what_a_match_must_contain() -> None:
    assert needles(re.compile(r"\bcall me (?P<name>\w+)")) == {"call me "}
    assert needles(re.compile(r"(?<!i )\b(?:answer|reply) in (?:english|portuguese)")) in (
        {"answer", "reply"},
        {"english", "portuguese"},
    )
    # an optional part is not required; a repeated one (at least once) is
    assert needles(re.compile(r"x?(?:abc)+")) == {"abc"}
    assert needles(re.compile(r"(?:abc)*d")) == {"d"}


def test_patterns_without_needles_always_run() -> None:
    assert needles(re.compile(r"\w+")) is None
    assert needles(re.compile(r"(?i)hello")) is None
    assert needles(re.compile(r"a|\d")) is None
    guarded = PatternSet([r"\d+", "never"])
    assert [m.group() for _i, m in guarded.matches("call 112 now")] == ["112"]
    assert guarded.candidates("nothing here") == [0]
