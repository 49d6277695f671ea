"""A daemon started in-process with one :class:`~tests.harness.RecordingAdapter` attached:
what tests (and benches) that talk to the router as a platform would need to wire each time."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from adapters.base import AdapterContext, Incoming
from bot.daemon.daemon import Daemon
from bot.llm.base import LLMBackend
from bot.setup.config import Config
from tests.harness import RecordingAdapter

__all__ = ["start_daemon"]


async def start_daemon(
    config: Config,
    data: Path,
    *,
    llm: LLMBackend | None = None,
    platform: str = "console",
    env: Mapping[str, str] | None = None,
    adapter_class: type[RecordingAdapter] = RecordingAdapter,
    supports_edit: bool = False,
) -> tuple[Daemon, RecordingAdapter]:
    """A started daemon (no HTTP, no jobs) whose ``platform`` adapter is a recording one.
    With ``llm`` the chat role's ``scripted`` backend is that model; without it the backends
    are built from ``config`` (a wire fake's address) with keys from ``env``."""
    daemon = Daemon(
        config,
        backends={"scripted": llm} if llm is not None else None,
        env=env,
        http=False,
        jobs=False,
    )

    async def handler(incoming: Incoming) -> None:
        assert daemon.router is not None
        await daemon.router.handle(incoming)

    context = AdapterContext(
        handler=handler, state=daemon.state.for_adapter(platform), data_dir=data
    )
    adapter = adapter_class(context, platform=platform, supports_edit=supports_edit)
    daemon.attach(platform, adapter)
    await daemon.start()
    return daemon, adapter
