"""Session search benchmark: the FTS5 index against ``grep -ri`` on the same daily logs.

Writes 3 years of daily session logs for each of 4 personas (about 24 turns a day, English and
Portuguese, in the daemon's log format), then for each persona:

* builds its index once from nothing (the first search after an upgrade or a deleted index),
* runs Q searches of one or two words through
  :func:`bot.persona.sessionlog.search.search_sessions`'s worker (index refresh included, results
  grouped and marked) and reports p50/p99,
* runs the same searches' first word as ``grep -ri WORD sessions/`` and reports p50/p99,
* appends a turn to today's log before each of 50 searches and reports p50/p99 (today's day is
  read again each time: what a search costs while a conversation goes on).

    python bench/session_search.py            # 3 years x 4 personas, 200 searches each
    python bench/session_search.py --quick    # 120 days x 2 personas, 50 searches
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import structlog

from bot.persona.sessionlog.search import _search

__all__ = ["main"]

_SUBJECTS = (
    "dentist passport kayak bakery garden sister brother marathon guitar train flight "
    "laptop budget landlord recipe concert museum vaccine insurance bicycle piano "
    "viagem praia jantar médico escola trabalho café mercado reunião aniversário"
).split()
_PLACES = "Lisbon Porto Berlin Kyoto Dublin Évora Sintra Madrid Boston Oslo".split()
_EN = (
    "I talked to the {s} about {p} today.",
    "Remind me that the {s} moved to {p}.",
    "We finally sorted the {s} thing, it was stressful.",
    "Do you remember what I said about the {s}?",
    "The {s} in {p} was closed again, so annoying.",
    "Tomorrow I need to call about the {s} before noon.",
)
_PT = (
    "Falei com a Ana sobre o {s} em {p}.",
    "Amanhã tenho de tratar do {s} logo cedo.",
    "O {s} correu muito bem, estou contente.",
    "Lembra que o {s} mudou para {p}.",
)
_REPLIES = (
    "That sounds like a lot; want me to note it?",
    "Got it. I will keep that in mind.",
    "Percebi, fica anotado.",
    "How did it go in the end?",
)


def _day_text(rng: random.Random, day: date, persona: str) -> str:
    parts = [f"# Session log {day.isoformat()} · {persona}\n\n"]
    minute = rng.randrange(7 * 60, 10 * 60)
    for _ in range(rng.randrange(8, 16)):
        template = rng.choice(_PT if rng.random() < 0.35 else _EN)
        said = template.format(s=rng.choice(_SUBJECTS), p=rng.choice(_PLACES))
        for role, speaker, text in (
            ("user", "scott", said),
            ("persona", persona, rng.choice(_REPLIES)),
        ):
            clock = f"{minute // 60 % 24:02}:{minute % 60:02}:{rng.randrange(60):02}"
            parts.append(f"### {clock} · {role} · {speaker} · console:scott\n\n{text}\n\n")
            minute += rng.randrange(1, 9)
    return "".join(parts)


def _write_logs(root: Path, personas: list[str], days: int, rng: random.Random) -> list[Path]:
    start = date(2024, 1, 1)
    folders = []
    for persona in personas:
        folder = root / "scott" / "persona" / persona
        sessions = folder / "sessions"
        sessions.mkdir(parents=True)
        for offset in range(days):
            day = start + timedelta(days=offset)
            (sessions / f"{day.isoformat()}.md").write_text(_day_text(rng, day, persona))
        folders.append(folder)
    return folders


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _report(label: str, values: list[float]) -> None:
    print(
        f"  {label:<34} p50 {statistics.median(values):8.2f} ms   p99 {_pct(values, 0.99):8.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    days, personas, searches = (120, 2, 50) if args.quick else (3 * 366, 4, 200)
    rng = random.Random(7)
    words = _SUBJECTS + [p.lower() for p in _PLACES]
    queries = [
        rng.choice(words) if rng.random() < 0.6 else f"{rng.choice(words)} {rng.choice(words)}"
        for _ in range(searches)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folders = _write_logs(Path(tmp), [f"p{i}" for i in range(personas)], days, rng)
        size = sum(f.stat().st_size for d in folders for f in (d / "sessions").iterdir())
        print(f"{personas} personas x {days} days of logs, {size / 1e6:.1f} MB in all")
        ours: list[float] = []
        grep: list[float] = []
        growing: list[float] = []
        builds: list[float] = []
        for folder in folders:
            persona = folder.name
            started = time.perf_counter()
            _search(folder, persona, "warmup", None, 30, False)
            builds.append((time.perf_counter() - started) * 1000)
            for query in queries:
                started = time.perf_counter()
                _search(folder, persona, query, None, 30, False)
                ours.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                subprocess.run(
                    ["grep", "-ri", query.split()[0], str(folder / "sessions")],
                    stdout=subprocess.DEVNULL,
                    check=False,
                )
                grep.append((time.perf_counter() - started) * 1000)
            today = folder / "sessions" / f"{date(2024, 1, 1) + timedelta(days=days - 1)}.md"
            for n, query in enumerate(queries[:50]):
                with today.open("a", encoding="utf-8") as file:
                    file.write(
                        f"### 23:{n // 60:02}:{n % 60:02} · user · scott · console:scott\n\n"
                    )
                    file.write(f"One more note about the {query}.\n\n")
                started = time.perf_counter()
                _search(folder, persona, query, None, 30, False)
                growing.append((time.perf_counter() - started) * 1000)
        print(f"  index built from nothing, per persona: {statistics.mean(builds) / 1000:.1f} s")
        _report("index search", ours)
        _report("index search, today's log growing", growing)
        _report("grep -ri (first word)", grep)
        print(f"  speed-up at p50: {statistics.median(grep) / statistics.median(ours):.0f}x")


if __name__ == "__main__":
    main()
