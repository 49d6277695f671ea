"""Session search: an index of the logs, accent- and stem-insensitive in English and Portuguese,
grouped by date with the matched words marked, kept up to date as the day's log grows, and
private: a search from a shared room shows only that room's turns."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from itertools import count
from pathlib import Path

from adapters.base import Incoming
from bot.persona.sessionlog.index import INDEX_FILE
from bot.persona.sessionlog.search import close_indexes, highlight, search_sessions, word_keys
from tests.harness import RecordingAdapter, ScriptedLLM, make_config, make_persona
from tests.rig import start_daemon


def _turn(clock: str, role: str, room: str, text: str) -> str:
    return f"### {clock} · {role} · {'scott' if role == 'user' else 'inara'} · {room}\n\n{text}\n\n"


def _log(directory: Path, day: str, *turns: str) -> Path:
    sessions = directory / "sessions"
    sessions.mkdir(exist_ok=True)
    path = sessions / f"{day}.md"
    with path.open("a", encoding="utf-8") as file:
        file.write("".join(turns))
    return path


async def test_words_match_across_accents_and_inflections_in_both_languages(
    tmp_path: Path,
) -> None:
    directory = make_persona(tmp_path, "scott")
    _log(
        directory,
        "2026-03-02",
        _turn("09:00:00", "user", "console:scott", "We planned two trips to the Café Central."),
        _turn("09:00:05", "persona", "console:scott", "Noted: Café Central, twice."),
        _turn("09:10:00", "user", "console:scott", "Sou alérgico a camarão, lembra disso."),
    )
    [day] = await search_sessions(directory, "inara", "cafe trip")
    assert day["date"] == "2026-03-02"
    [hit] = day["hits"]  # the reply holds "Café" but not "trip": every word is required
    assert hit["highlighted"] == "We planned two **trips** to the **Café** Central."
    assert [hit["excerpt"][a:b] for a, b in hit["marks"]] == ["trips", "Café"]
    assert hit["time"] == "09:00:00" and hit["role"] == "user"

    [pt] = await search_sessions(directory, "inara", "alergia")
    assert pt["hits"][0]["highlighted"] == "Sou **alérgico** a camarão, lembra disso."
    assert await search_sessions(directory, "inara", "zebra") == []
    assert await search_sessions(directory, "inara", "  ?! ") == []


async def test_full_width_letters_and_digits_match_their_plain_forms(tmp_path: Path) -> None:
    """A phone keyboard in a Japanese or Chinese layout types full-width letters:
    ``ｐａｓｓｐｏｒｔ`` finds "passport" and the other way round, and the mark covers the word
    as it was typed."""
    directory = make_persona(tmp_path, "scott")
    _log(
        directory,
        "2026-03-02",
        _turn("09:00:00", "user", "console:scott", "Renew the ｐａｓｓｐｏｒｔ by the ３１st."),
        _turn("09:05:00", "user", "console:scott", "The visa office opens at 9."),
    )
    [day] = await search_sessions(directory, "inara", "passport 31st")
    [hit] = day["hits"]
    assert hit["highlighted"] == "Renew the **ｐａｓｓｐｏｒｔ** by the **３１st**."
    [day] = await search_sessions(directory, "inara", "ＶＩＳＡ")
    assert day["hits"][0]["highlighted"] == "The **visa** office opens at 9."
    assert word_keys("ｐａｓｓｐｏｒｔｓ") == word_keys("passports")


async def test_results_are_grouped_by_date_newest_first(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    for day in ("2025-12-30", "2026-01-02", "2026-01-01"):
        _log(
            directory,
            day,
            _turn("08:00:00", "user", "console:scott", f"Dentist on {day}."),
            _turn("18:00:00", "user", "console:scott", "The dentist called again."),
        )
    results = await search_sessions(directory, "inara", "dentists")
    assert [group["date"] for group in results] == ["2026-01-02", "2026-01-01", "2025-12-30"]
    assert [hit["time"] for hit in results[0]["hits"]] == ["08:00:00", "18:00:00"]
    assert len(await search_sessions(directory, "inara", "dentist", days=2)) == 2


async def test_the_index_follows_the_growing_log_and_survives_being_deleted(
    tmp_path: Path,
) -> None:
    directory = make_persona(tmp_path, "scott")
    path = _log(directory, "2026-05-09", _turn("10:00:00", "user", "console:scott", "Hello."))
    assert await search_sessions(directory, "inara", "kayak") == []
    assert (directory / INDEX_FILE).is_file()
    _log(directory, "2026-05-09", _turn("10:05:00", "user", "console:scott", "I bought a kayak."))
    [day] = await search_sessions(directory, "inara", "kayak")
    assert day["hits"][0]["time"] == "10:05:00"
    _log(directory, "2026-05-10", _turn("07:00:00", "user", "console:scott", "Kayaking today!"))
    assert [g["date"] for g in await search_sessions(directory, "inara", "kayak")] == [
        "2026-05-10",
        "2026-05-09",
    ]
    path.unlink()  # a day removed is gone from the results
    assert [g["date"] for g in await search_sessions(directory, "inara", "kayak")] == ["2026-05-10"]


def test_an_excerpt_of_a_long_turn_is_cut_at_words_around_the_match() -> None:
    text = ("filler " * 40) + "the Lisbon flat is rented " + ("more " * 40)
    marked = highlight(text, set(word_keys("lisbon")))
    assert marked.text.startswith("…") and marked.text.endswith("…")
    assert "**Lisbon**" in marked.bold
    assert all(
        word in ("filler", "more", "the", "Lisbon", "flat", "is", "rented", "…")
        for word in marked.text.replace("…", " … ").split()
    )


def _chat(adapter: RecordingAdapter) -> Callable[..., Awaitable[str]]:
    """``say(text, room, direct=...)``: a message from scott, and what was answered to it."""
    ids = count()

    async def say(text: str, room: str, *, direct: bool) -> str:
        before = len(adapter.sent)
        await adapter.context.handler(
            Incoming(
                platform="console",
                sender="scott",
                room=room,
                text=text,
                event_id=f"e{next(ids)}",
                is_direct=direct,
            )
        )
        return "\n".join(text for _room, text in adapter.sent[before:])

    return say


async def test_chat_search_marks_words_and_a_shared_room_sees_only_its_own_turns(
    tmp_path: Path,
) -> None:
    make_persona(tmp_path, "scott")
    daemon, adapter = await start_daemon(make_config(tmp_path), tmp_path, llm=ScriptedLLM())
    say = _chat(adapter)
    try:
        await say("My passport number ends in 42 and the passport expires soon", "dm", direct=True)
        await say("The team passport photos are on Friday", "team", direct=False)
        await say("/otr on", "dm", direct=True)
        await say("passport gossip nobody may keep", "dm", direct=True)
        await say("/otr off", "dm", direct=True)

        from_shared = await say("/search passports", "team", direct=False)
        assert "team **passport** photos" in from_shared
        assert "expires" not in from_shared and "gossip" not in from_shared

        from_direct = await say("/search passport", "dm", direct=True)
        assert "**passport** number" in from_direct and "**passport** photos" in from_direct
        assert "gossip" not in from_direct  # Off The Record never reached the log
        assert "Nothing in our past conversations" in await say("/search gossip", "dm", direct=True)
    finally:
        await daemon.stop()


async def test_a_chat_search_longer_than_the_apis_limit_is_answered_with_the_limit(
    tmp_path: Path,
) -> None:
    """``GET /sessions/search`` refuses a query past 500 characters; ``/search`` in chat took
    any length (a pasted paragraph made a query of hundreds of required words)."""
    make_persona(tmp_path, "scott")
    daemon, adapter = await start_daemon(make_config(tmp_path), tmp_path, llm=ScriptedLLM())
    say = _chat(adapter)
    try:
        await say("The pottery class moved to Thursday", "dm", direct=True)
        long = "pottery " + "x" * 600
        answer = await say(f"/search {long}", "dm", direct=True)
        assert answer == (
            f"A search is at most 500 characters; yours is {len(long)}."
            " Search again with fewer words."
        )
        at_the_limit = "pottery " + " ".join(["class"] * 82)
        assert len(at_the_limit) <= 500
        assert "**pottery** **class**" in await say(f"/search {at_the_limit}", "dm", direct=True)
    finally:
        await daemon.stop()


async def test_a_secret_in_the_log_is_neither_found_nor_shown(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    secret = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"
    _log(
        directory,
        "2026-06-01",
        _turn("10:00:00", "user", "console:scott", f"The billing api key is {secret} for now."),
    )
    [day] = await search_sessions(directory, "inara", "billing key")
    assert secret not in day["hits"][0]["excerpt"]
    assert await search_sessions(directory, "inara", secret) == []
    assert secret.encode() not in (directory / INDEX_FILE).read_bytes()


async def test_a_damaged_or_deleted_index_is_built_again_from_the_logs(tmp_path: Path) -> None:
    directory = make_persona(tmp_path, "scott")
    _log(directory, "2026-06-02", _turn("10:00:00", "user", "console:scott", "Pottery class."))
    assert len(await search_sessions(directory, "inara", "pottery")) == 1
    close_indexes()
    (directory / INDEX_FILE).write_bytes(b"this is not a database" * 100)
    assert len(await search_sessions(directory, "inara", "pottery")) == 1
    close_indexes()
    (directory / INDEX_FILE).unlink()
    assert len(await search_sessions(directory, "inara", "pottery")) == 1
    assert (directory / INDEX_FILE).stat().st_mode & 0o077 == 0
