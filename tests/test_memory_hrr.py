"""The vector algebra and the parser under the holographic backend."""

from __future__ import annotations

import numpy as np
import pytest

from bot.memory.holographic import hrr
from bot.memory.holographic.hrr import (
    DIM,
    Cleanup,
    TraceIndex,
    bind,
    bundle,
    cosine,
    parse,
    symbol,
    unbind,
)


def test_symbols_are_deterministic_unit_scale_and_nearly_orthogonal() -> None:
    a, again, b = symbol("scott"), symbol("scott"), symbol("holly")
    assert a.shape == (DIM,)
    assert np.array_equal(a, again)
    assert abs(float(np.linalg.norm(a)) - 1.0) < 0.1  # variance 1/d per entry
    assert abs(float(np.var(a)) - 1.0 / DIM) < 0.2 / DIM
    assert abs(cosine(a, b)) < 0.15


def test_binding_hides_both_inputs_and_unbinding_recovers_the_filler() -> None:
    role, filler = symbol("role:object"), symbol("tea")
    bound = bind(role, filler)
    assert abs(cosine(bound, role)) < 0.15
    assert abs(cosine(bound, filler)) < 0.15
    assert cosine(unbind(bound, role), filler) > 0.6


def test_binding_matches_the_definition_of_circular_convolution() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=16), rng.normal(size=16)
    direct = np.array([sum(a[k] * b[(n - k) % 16] for k in range(16)) for n in range(16)])
    assert np.allclose(bind(a, b), direct)
    assert np.allclose(hrr.involution(a)[1:], a[:0:-1])


def test_unbind_many_equals_unbinding_each_row() -> None:
    rows = np.vstack([symbol(f"row{i}") for i in range(5)])
    key = symbol("key")
    many = hrr.unbind_many(rows, key)
    for index in range(5):
        assert np.allclose(many[index], unbind(rows[index], key))


def test_a_superposed_trace_answers_each_role_through_cleanup() -> None:
    memory = Cleanup()
    pairs = {"subject": "scott", "relation": "prefer", "object": "tea", "topic": "breakfast"}
    for word in [*pairs.values(), "coffee", "holly", "dinner", "like"]:
        memory.vector(word)
    trace = sum(bind(symbol(f"role:{r}"), memory.vector(w)) for r, w in pairs.items())
    assert isinstance(trace, np.ndarray)
    for role, word in pairs.items():
        best, similarity = memory.nearest(unbind(trace, symbol(f"role:{role}")), k=1)[0]
        assert best == word
        assert similarity > 0.3


def test_cleanup_stays_reliable_with_thousands_of_symbols() -> None:
    memory = Cleanup()
    for index in range(3000):
        memory.vector(f"symbol{index}")
    target = memory.vector("symbol1234")
    noisy = target + np.random.default_rng(7).normal(0, 1.5 / np.sqrt(DIM), DIM)
    assert memory.nearest(noisy, k=1)[0][0] == "symbol1234"


def test_bundle_of_nothing_is_zero_and_of_words_is_unit_length() -> None:
    assert not bundle([]).any()
    assert float(np.linalg.norm(bundle([symbol("green"), symbol("tea")]))) == pytest.approx(1.0)


def test_trace_index_probe_scores_the_matching_structure_highest() -> None:
    index = TraceIndex()
    index.add("a", index.encode({"subject": ["scott"], "relation": ["like"], "object": ["holly"]}))
    index.add("b", index.encode({"subject": ["holly"], "relation": ["like"], "object": ["scott"]}))
    ids, roles, sims = index.probe({"subject": ["scott"], "relation": ["like"]})
    assert roles == ["subject", "relation"]
    by_id = dict(zip(ids, sims.sum(axis=1), strict=True))
    assert by_id["a"] > by_id["b"] + 0.6
    assert index.decode("a", "object", k=1)[0][0] == "holly"
    assert index.decode("b", "object", k=1)[0][0] == "scott"
    index.remove("a")
    assert "a" not in index and len(index) == 1
    assert index.decode("b", "subject", k=1)[0][0] == "holly"


def test_query_words_do_not_grow_the_cleanup_memory() -> None:
    index = TraceIndex()
    index.add("a", index.encode({"subject": ["scott"]}))
    index.probe({"subject": ["somebody", "else"]})
    assert len(index.cleanup) == 1


@pytest.mark.parametrize(
    ("text", "roles"),
    [
        (
            "Scott prefers tea for breakfast",
            {"subject": ("scott",), "relation": ("prefer",), "object": ("tea",),
             "topic": ("breakfast",)},
        ),
        ("I love Lisbon", {"subject": ("user",), "relation": ("love",), "object": ("lisbon",)}),
        ("I don't like coffee",
         {"subject": ("user",), "relation": ("not-like",), "object": ("coffee",)}),
        ("Scott's birthday is March 3",
         {"subject": ("scott",), "relation": ("birthday",), "object": ("march", "3")}),
        ("my wife is Holly", {"subject": ("user",), "relation": ("wife",), "object": ("holly",)}),
        ("Holly is my wife", {"subject": ("user",), "relation": ("wife",), "object": ("holly",)}),
        ("eu prefiro chá", {"subject": ("user",), "relation": ("prefer",), "object": ("cha",)}),
        ("o aniversário de Scott é 3 de março",
         {"subject": ("scott",), "relation": ("birthday",), "object": ("3", "marco")}),
        ("Scott lives in Lisbon",
         {"subject": ("scott",), "relation": ("live",), "object": ("lisbon",)}),
    ],
)  # fmt: skip
def test_statements_parse_into_roles(text: str, roles: dict[str, tuple[str, ...]]) -> None:
    parsed = parse(text)
    assert parsed.roles == roles
    assert not parsed.question and parsed.asked is None


@pytest.mark.parametrize(
    ("text", "roles", "asked"),
    [
        ("what does Scott prefer for breakfast",
         {"subject": ("scott",), "relation": ("prefer",), "topic": ("breakfast",)}, "object"),
        ("who prefers tea?", {"relation": ("prefer",), "object": ("tea",)}, "subject"),
        ("when is Scott's birthday", {"subject": ("scott",), "relation": ("birthday",)}, "object"),
        ("quando é o aniversário de Scott",
         {"subject": ("scott",), "relation": ("birthday",)}, "object"),
        ("o que o Scott prefere no café da manhã",
         {"subject": ("scott",), "relation": ("prefer",), "topic": ("breakfast",)}, "object"),
        ("quem é minha esposa", {"subject": ("user",), "relation": ("wife",)}, "object"),
        ("where does Scott live", {"subject": ("scott",), "relation": ("live",)}, "object"),
    ],
)  # fmt: skip
def test_questions_parse_into_partial_roles(
    text: str, roles: dict[str, tuple[str, ...]], asked: str
) -> None:
    parsed = parse(text)
    assert parsed.question
    assert parsed.roles == roles
    assert parsed.asked == asked
    assert parsed.structured


def test_unstructured_text_keeps_only_its_content_words() -> None:
    parsed = parse("breakfast plans for the trip?")
    assert not parsed.structured
    assert parsed.keywords == ("breakfast", "plans", "trip")


def test_keywords_are_folded_and_verbs_canonical() -> None:
    assert parse("Eu prefiro CHÁ").keywords == ("prefer", "cha", "user")
