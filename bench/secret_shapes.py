"""The secret detector on long texts of one repeated shape: does its time grow with the text,
or faster?

    python bench/secret_shapes.py [--units 1500] [--shapes all|SHAPE,...]

Each shape (a phrase the rules look for, said over and over with no sentence end, or many
short sentences) is read at ``--units`` repetitions and at four times as many. Printed per
shape: both times, the time a character at the larger size, and the growth (4.0 when the time
grows as the text does; 16 when it grows as its square).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.memory.secrets.detector import find_secrets

__all__ = ["SHAPES", "main", "measure"]

#: phrases the rules act on, each repeated to make a long text
SHAPES = (
    "pw: ",
    "pw -> ",
    "password is x ",
    "senha é x ",
    "pin ",
    "cvv ",
    "code 1234 ",
    "code word ",
    "user / Pass1 ",
    "seed phrase: ",
    "orbit velvet ",
    "drip... no ",
    "mine is x1 ",
    "my pin is 4471. it is 1234. ",
    "password. It is Rainbow77 ",
    "unlocks with her birthday 1403 ",
    "the answer to 'x' is y ",
    "master password, x, y: ",
    "uuid 1d9acbce-4045-4a23-9343-a69947f69ce3 ",
    "commit ab12cd ",
    "senha, ",
    "wifi:",
    "pw:",
    "senha=",
    'senha "x" ',
)


def measure(shape: str, units: int) -> tuple[float, float]:
    """Seconds to read ``shape`` repeated ``units`` times, and four times as many."""
    times = []
    for count in (units, units * 4):
        text = shape * count
        find_secrets.cache_clear()
        started = time.perf_counter()
        find_secrets(text)
        times.append(time.perf_counter() - started)
    return times[0], times[1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--units", type=int, default=1500)
    parser.add_argument("--shapes", default="all")
    args = parser.parse_args(argv)
    shapes = SHAPES if args.shapes == "all" else tuple(args.shapes.split(","))
    print(f"{'shape':<46}{'x' + str(args.units):>10}{'x' + str(args.units * 4):>10}"
          f"{'µs/char':>10}{'growth':>8}")  # fmt: skip
    for shape in shapes:
        small, large = measure(shape, args.units)
        per_char = large / len(shape * args.units * 4) * 1e6
        growth = large / small if small > 0 else float("nan")
        print(
            f"{shape!r:<46}{small * 1000:>8.0f}ms{large * 1000:>8.0f}ms{per_char:>10.2f}"
            f"{growth:>8.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
