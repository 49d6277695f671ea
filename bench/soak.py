"""Soak: many people talking to ``personad run`` on a real Synapse while everything fails.

A real Synapse (from ``.venv-synapse``), 20 users each in a direct room with the bot, 2,000
messages sent at random moments; meanwhile the daemon is SIGKILLed 10 times and SIGTERMed 3
times, the homeserver is stopped twice for 30 s, and 30% of model calls fail (429, 500, 529,
or a stream cut after a few words) from a loopback model that streams its answers. Then it
waits for the daemon to catch up, and counts from the homeserver's room history what each
message got (see :mod:`bench.soak_count`): answered exactly once, lost, doubled, left as a
fragment, or a notice that the model failed; and checks every SQLite file under the data
folder with ``PRAGMA integrity_check`` and parses every JSON file.

    python bench/soak.py [--users 20] [--messages 2000] [--kills 10] [--terms 3]
                         [--outages 2] [--outage-seconds 30] [--failure-rate 0.3] [--seed 1]
    python bench/soak.py --quick      # a short check: 4 users, 60 messages, fewer faults

Messages are sent at random moments over ``--send-seconds``; faults happen one at a time at
random moments in that window. The daemon's log is kept in the work folder (``--keep``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.soak_count import Tally, check_files, count_room
from tests.daemon_process import DaemonProcess, daemon_config, room_history
from tests.fakes.streaming_model import StreamingModel
from tests.harness import make_persona
from tests.synapse import Human, SynapseServer, free_port, synapse_python

WORDS = 12


class Soak:
    def __init__(self, args: argparse.Namespace, workdir: Path, model: StreamingModel) -> None:
        self.args = args
        self.workdir = workdir
        self.random = random.Random(args.seed)
        self.server = SynapseServer(synapse_python(), workdir / "synapse")
        self.model = model
        self.people: list[Human] = []
        self.rooms: list[str] = []
        self.daemon: DaemonProcess | None = None
        self.sent = 0
        self.faults: list[str] = []

    async def setup(self) -> None:
        (self.workdir / "synapse").mkdir()
        await asyncio.to_thread(self.server.configure)
        await asyncio.to_thread(self.server.start)
        bot = self.server.register()
        self.bot_id = bot.user_id
        self.people = [Human(self.server, self.server.register()) for _ in range(self.args.users)]
        data = self.workdir / "data"
        names = {f"user{n}": person.user_id for n, person in enumerate(self.people)}
        for name in names:
            make_persona(data, name)
        port = free_port()
        config = daemon_config(
            self.workdir / "personad.toml",
            data_dir=data,
            server=self.server,
            bot=bot,
            people=names,
            model_url=self.model.api_url,
            port=port,
        )
        self.daemon = DaemonProcess(config, port, self.workdir / "daemon.log")
        await asyncio.to_thread(self.daemon.start)
        for person in self.people:
            self.rooms.append(await person.create_room(bot.user_id, direct=True))
        for person, room in zip(self.people, self.rooms, strict=True):
            await person.wait_membership(room, bot.user_id, "join", within=120)

    async def sender(self, index: int, moments: list[float], start: float) -> None:
        person, room = self.people[index], self.rooms[index]
        for number, moment in enumerate(moments):
            await asyncio.sleep(max(0.0, start + moment - time.monotonic()))
            tag = f"msg-u{index}-{number}"
            content = {"msgtype": "m.text", "body": f"message {number} from {index}, {tag}"}
            while True:  # the homeserver may be down: the same transaction id, again
                answer = None
                with contextlib.suppress(Exception):  # refused while the homeserver is stopped
                    answer = await person.client.room_send(
                        room, "m.room.message", content, tx_id=f"soak-{tag}"
                    )
                if hasattr(answer, "event_id"):
                    break
                await asyncio.sleep(1.0)
            self.sent += 1

    async def chaos(self, moments: list[tuple[float, str]], start: float) -> None:
        assert self.daemon is not None
        for moment, fault in moments:
            await asyncio.sleep(max(0.0, start + moment - time.monotonic()))
            began = time.monotonic()
            if fault == "kill":
                await asyncio.to_thread(self.daemon.kill)
                await asyncio.sleep(self.random.uniform(0.0, 2.0))
                await asyncio.to_thread(self.daemon.start)
            elif fault == "term":
                code = await asyncio.to_thread(self.daemon.terminate, 180.0)
                if code != 0:
                    self.faults.append(f"SIGTERM exit code {code}")
                await asyncio.to_thread(self.daemon.start)
            else:
                await asyncio.to_thread(self.server.stop)
                await asyncio.sleep(self.args.outage_seconds)
                await asyncio.to_thread(self.server.start)
            took = time.monotonic() - began
            print(f"  {time.monotonic() - start:6.1f}s {fault} ({took:.1f}s)", flush=True)

    async def run(self) -> dict[str, object]:
        args = self.args
        per_user = [args.messages // args.users] * args.users
        for extra in range(args.messages % args.users):
            per_user[extra] += 1
        plans = [
            sorted(self.random.uniform(0, args.send_seconds) for _ in range(n)) for n in per_user
        ]
        faults = ["kill"] * args.kills + ["term"] * args.terms + ["outage"] * args.outages
        # faults spread over the window, one at a time, with room to recover in between
        slots = sorted(self.random.uniform(0, args.send_seconds) for _ in faults)
        self.random.shuffle(faults)
        start = time.monotonic()
        senders = [self.sender(i, plan, start) for i, plan in enumerate(plans)]
        await asyncio.gather(self.chaos(list(zip(slots, faults, strict=True)), start), *senders)
        print(f"  {time.monotonic() - start:6.1f}s all {self.sent} messages sent", flush=True)
        tally = await self.settle(start)
        assert self.daemon is not None
        code = await asyncio.to_thread(self.daemon.terminate, 180.0)
        files = check_files(self.workdir / "data")
        return {
            "messages": tally.messages,
            "outcomes": dict(tally.outcomes),
            "user_duplicates": tally.user_duplicates,
            "examples": tally.examples,
            "model_requests": len(self.model.requests),
            "model_failures": dict(self.model.failures),
            "final_exit_code": code,
            "faults": self.faults,
            "files": files,
            "seconds": round(time.monotonic() - start, 1),
        }

    async def settle(self, start: float) -> Tally:
        """Count until nothing changes for ``--settle-seconds`` (or everything is answered)."""
        last: list[tuple[str, int]] = []
        quiet_since = time.monotonic()
        while True:
            tally = await self.count()
            now = sorted(tally.outcomes.items())
            done = tally.outcomes["exactly_once"] + tally.outcomes["notice"] == self.args.messages
            if now != last:
                last, quiet_since = now, time.monotonic()
                print(f"  {time.monotonic() - start:6.1f}s {dict(tally.outcomes)}", flush=True)
            if done or time.monotonic() - quiet_since > self.args.settle_seconds:
                return tally
            await asyncio.sleep(3.0)

    async def count(self) -> Tally:
        tally = Tally()
        for person, room in zip(self.people, self.rooms, strict=True):
            events = await room_history(person, room)
            count_room(events, person.user_id, self.bot_id, WORDS, tally)
        return tally

    async def close(self) -> None:
        if self.daemon is not None:
            self.daemon.kill()
        for person in self.people:
            await person.close()
        self.server.stop()


async def main_async(args: argparse.Namespace) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="personad-soak-"))
    model = StreamingModel.run_in_thread(
        words=WORDS, delay=0.02, failure_rate=args.failure_rate, seed=args.seed
    )
    with model as streaming:
        soak = Soak(args, workdir, streaming)
        try:
            await soak.setup()
            result = await soak.run()
        finally:
            await soak.close()
    outcomes: dict[str, int] = result["outcomes"]  # type: ignore[assignment]
    files: dict[str, object] = result["files"]  # type: ignore[assignment]
    print(json.dumps(result, indent=1))
    print(
        f"messages {result['messages']}: exactly once {outcomes.get('exactly_once', 0)}, "
        f"model-failure notice {outcomes.get('notice', 0)}, "
        f"answered together with the next {outcomes.get('together', 0)}, "
        f"lost {outcomes.get('lost', 0)}, "
        f"doubled {outcomes.get('doubled', 0)}, fragments {outcomes.get('fragment', 0)}; "
        f"files: {files['sqlite']} SQLite, {files['json']} JSON, "
        f"corrupt {len(files['corrupt'])}; {result['seconds']} s"  # type: ignore[arg-type]
    )
    if args.keep:
        print(f"work folder kept: {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    bad = sum(outcomes.get(k, 0) for k in ("lost", "doubled", "fragment"))
    return 1 if bad or files["corrupt"] else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--terms", type=int, default=3)
    parser.add_argument("--outages", type=int, default=2)
    parser.add_argument("--outage-seconds", type=float, default=30.0)
    parser.add_argument("--failure-rate", type=float, default=0.3)
    parser.add_argument("--send-seconds", type=float, default=600.0)
    parser.add_argument("--settle-seconds", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the work folder and logs")
    parser.add_argument("--quick", action="store_true", help="a short check of the bench")
    args = parser.parse_args()
    # the people's clients retry through the outages by design; their warnings are noise here
    logging.getLogger("nio").setLevel(logging.ERROR)
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)
    if args.quick:
        args.users, args.messages, args.kills, args.terms = 4, 60, 2, 1
        args.outages, args.outage_seconds, args.send_seconds = 1, 8.0, 60.0
        args.settle_seconds = 60.0
    sys.exit(asyncio.run(main_async(args)))


if __name__ == "__main__":
    main()
