"""A loopback Honcho v3 server for tests, speaking the HTTP API the ``honcho-ai`` SDK uses.

State lives in memory. Covered: workspaces (get-or-create), peers (get-or-create, list),
sessions (get-or-create with peers, add peers), messages (batch create, list), message search
(workspace, session and peer), peer representation and context, and conclusions (create, list
with filters, query, get, delete). Responses carry the fields of the server's schemas
(``WorkspaceResponse``, ``PeerResponse``, ``SessionResponse``, ``MessageResponse``,
``ConclusionResponse``, ``RepresentationResponse``, pages of ``items/page/size/total/pages``)
so the real SDK parses them; errors come as ``{"detail": ...}`` with the real status codes
(401 bad key, 404 unknown resource, 422 invalid body or name).

Search is word overlap (the real server embeds; the tests only need a plausible ranking).
``derive(observer, observed, text)`` stands in for Honcho's background reasoning, adding a
conclusion the client never wrote. ``fail_next(status, times)`` makes the next requests fail::

    async with FakeHoncho(api_key="k") as fake:
        client = Honcho(base_url=fake.base_url, api_key="k", workspace_id="w")
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from tests.fakes.lifecycle import ServerContext

__all__ = ["FakeHoncho", "Workspace"]

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,100}$")
_WORDS = re.compile(r"\w+")


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _new_id() -> str:
    return secrets.token_urlsafe(16)[:21]


def _words(text: str) -> set[str]:
    folded = unicodedata.normalize("NFKD", text.lower())
    bare = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return {word for word in _WORDS.findall(bare) if len(word) > 2}


def _overlap(query: str, text: str) -> int:
    return len(_words(query) & _words(text))


@dataclass
class Workspace:
    id: str
    created_at: str = field(default_factory=_now)
    peers: dict[str, dict[str, Any]] = field(default_factory=dict)
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    session_peers: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    conclusions: dict[str, dict[str, Any]] = field(default_factory=dict)


class _Problem(Exception):
    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(str(detail))
        self.status = status
        self.detail = detail


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _page(items: list[dict[str, Any]], request: web.Request) -> dict[str, Any]:
    page = max(1, int(request.query.get("page", "1")))
    size = max(1, int(request.query.get("size", "50")))
    if request.query.get("reverse") == "true":
        items = list(reversed(items))
    chunk = items[(page - 1) * size : page * size]
    pages = max(1, -(-len(items) // size))
    return {"items": chunk, "page": page, "size": size, "total": len(items), "pages": pages}


def _matches(record: dict[str, Any], filters: dict[str, Any] | None) -> bool:
    for key, wanted in (filters or {}).items():
        value = record.get(key)
        if isinstance(wanted, dict):
            if "in" in wanted and value not in wanted["in"]:
                return False
            if "contains" in wanted and wanted["contains"] not in (value or []):
                return False
        elif isinstance(wanted, list):
            if value not in wanted:
                return False
        elif value != wanted:
            return False
    return True


class FakeHoncho(ServerContext):
    """The server and its state; ``async with`` starts it on a free loopback port."""

    def __init__(self, *, api_key: str | None = None) -> None:
        self.api_key = api_key
        self.workspaces: dict[str, Workspace] = {}
        self.requests: list[tuple[str, str]] = []
        self._failures: list[int] = []
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    # -- lifecycle and test controls ---------------------------------------------------------

    async def start(self, port: int = 0) -> str:
        app = web.Application(middlewares=[self._middleware])
        self._routes(app)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", [])
        self.base_url = f"http://127.0.0.1:{sockets[0].getsockname()[1]}"
        return self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def fail_next(self, status: int, times: int = 1) -> None:
        """Answer the next ``times`` requests with ``status`` and a ``detail`` body."""
        self._failures.extend([status] * times)

    def workspace(self, workspace_id: str) -> Workspace:
        return self.workspaces[workspace_id]

    def derive(self, workspace_id: str, observer: str, observed: str, content: str) -> str:
        """A conclusion as Honcho's own reasoning would add it (level ``deductive``)."""
        record = self._conclusion(workspace_id, observer, observed, content, None)
        record["level"] = "deductive"
        return str(record["id"])

    # -- plumbing --------------------------------------------------------------------------

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        self.requests.append((request.method, request.path))
        if self._failures:
            status = self._failures.pop(0)
            return web.json_response({"detail": f"injected failure {status}"}, status=status)
        if self.api_key is not None:
            if request.headers.get("Authorization") != f"Bearer {self.api_key}":
                return web.json_response({"detail": "Invalid or missing API key"}, status=401)
        try:
            return await handler(request)
        except _Problem as problem:
            return web.json_response({"detail": problem.detail}, status=problem.status)

    def _routes(self, app: web.Application) -> None:
        w = "/v3/workspaces/{workspace}"
        app.router.add_post("/v3/workspaces", self._workspace_get_or_create)
        app.router.add_post(f"{w}/peers", self._peer_get_or_create)
        app.router.add_post(f"{w}/peers/list", self._peers_list)
        app.router.add_post(f"{w}/peers/{{peer}}/search", self._peer_search)
        app.router.add_post(f"{w}/peers/{{peer}}/representation", self._representation)
        app.router.add_get(f"{w}/peers/{{peer}}/context", self._peer_context)
        app.router.add_post(f"{w}/sessions", self._session_get_or_create)
        app.router.add_post(f"{w}/sessions/{{session}}/peers", self._session_add_peers)
        app.router.add_post(f"{w}/sessions/{{session}}/messages", self._messages_create)
        app.router.add_post(f"{w}/sessions/{{session}}/messages/list", self._messages_list)
        app.router.add_post(f"{w}/sessions/{{session}}/search", self._session_search)
        app.router.add_post(f"{w}/search", self._workspace_search)
        app.router.add_post(f"{w}/conclusions", self._conclusions_create)
        app.router.add_post(f"{w}/conclusions/list", self._conclusions_list)
        app.router.add_post(f"{w}/conclusions/query", self._conclusions_query)
        app.router.add_get(f"{w}/conclusions/{{conclusion}}", self._conclusion_get)
        app.router.add_delete(f"{w}/conclusions/{{conclusion}}", self._conclusion_delete)

    @staticmethod
    async def _body(request: web.Request) -> dict[str, Any]:
        if not request.can_read_body:
            return {}
        try:
            body = await request.json()
        except ValueError as exc:
            raise _Problem(422, [{"msg": f"invalid JSON: {exc}", "type": "json_invalid"}]) from exc
        if body is None:
            return {}
        if not isinstance(body, dict):
            raise _Problem(422, [{"msg": "body must be an object", "type": "dict_type"}])
        return body

    @staticmethod
    def _name(value: Any, what: str) -> str:
        if not isinstance(value, str) or not _NAME.match(value):
            raise _Problem(
                422, [{"loc": ["body", what], "msg": "String should match pattern", "input": value}]
            )
        return value

    def _ws(self, request: web.Request) -> Workspace:
        workspace = self.workspaces.get(request.match_info["workspace"])
        if workspace is None:
            raise _Problem(404, "Workspace not found")
        return workspace

    @staticmethod
    def _session_of(workspace: Workspace, request: web.Request) -> dict[str, Any]:
        session = workspace.sessions.get(request.match_info["session"])
        if session is None:
            raise _Problem(404, "Session not found")
        return session

    def _ensure_peer(self, workspace: Workspace, name: Any) -> dict[str, Any]:
        peer_id = self._name(name, "peer_id")
        if peer_id not in workspace.peers:
            workspace.peers[peer_id] = {
                "id": peer_id,
                "uid": _new_id(),
                "workspace_id": workspace.id,
                "created_at": _now(),
                "metadata": {},
                "configuration": {},
            }
        return workspace.peers[peer_id]

    # -- workspaces, peers, sessions -------------------------------------------------------

    async def _workspace_get_or_create(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        workspace_id = self._name(body.get("id"), "id")
        workspace = self.workspaces.setdefault(workspace_id, Workspace(workspace_id))
        return web.json_response(
            {
                "id": workspace.id,
                "metadata": body.get("metadata") or {},
                "configuration": {},
                "created_at": workspace.created_at,
            }
        )

    async def _peer_get_or_create(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        body = await self._body(request)
        peer = self._ensure_peer(workspace, body.get("id"))
        if body.get("metadata") is not None:
            peer["metadata"] = body["metadata"]
        return web.json_response(peer)

    async def _peers_list(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        body = await self._body(request)
        peers = [p for p in workspace.peers.values() if _matches(p, body.get("filters"))]
        return web.json_response(_page(peers, request))

    async def _session_get_or_create(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        body = await self._body(request)
        session_id = self._name(body.get("id"), "id")
        if session_id not in workspace.sessions:
            workspace.sessions[session_id] = {
                "id": session_id,
                "uid": _new_id(),
                "is_active": True,
                "workspace_id": workspace.id,
                "metadata": body.get("metadata") or {},
                "configuration": body.get("configuration") or {},
                "created_at": _now(),
            }
            workspace.session_peers[session_id] = {}
        self._join(workspace, session_id, body.get("peers") or {})
        return web.json_response(workspace.sessions[session_id])

    def _join(self, workspace: Workspace, session_id: str, peers: dict[str, Any]) -> None:
        for peer_id, config in peers.items():
            self._ensure_peer(workspace, peer_id)
            workspace.session_peers[session_id][peer_id] = dict(config or {})

    async def _session_add_peers(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        session = self._session_of(workspace, request)
        self._join(workspace, session["id"], await self._body(request))
        return web.json_response(session)

    # -- messages and search ---------------------------------------------------------------

    async def _messages_create(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        session = self._session_of(workspace, request)
        body = await self._body(request)
        batch = body.get("messages")
        if not isinstance(batch, list) or not 1 <= len(batch) <= 100:
            raise _Problem(422, [{"loc": ["body", "messages"], "msg": "1 to 100 messages"}])
        created = []
        for message in batch:
            content = message.get("content")
            if not isinstance(content, str):
                raise _Problem(422, [{"loc": ["body", "content"], "msg": "must be a string"}])
            peer = self._ensure_peer(workspace, message.get("peer_id"))
            workspace.session_peers[session["id"]].setdefault(peer["id"], {})
            record = {
                "id": _new_id(),
                "content": content,
                "peer_id": peer["id"],
                "session_id": session["id"],
                "metadata": message.get("metadata") or {},
                "created_at": message.get("created_at") or _now(),
                "workspace_id": workspace.id,
                "token_count": len(content.split()),
            }
            workspace.messages.append(record)
            created.append(record)
        return web.json_response(created)

    async def _messages_list(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        session = self._session_of(workspace, request)
        body = await self._body(request)
        messages = [
            m
            for m in workspace.messages
            if m["session_id"] == session["id"] and _matches(m, body.get("filters"))
        ]
        return web.json_response(_page(messages, request))

    def _search(self, pool: list[dict[str, Any]], body: dict[str, Any]) -> web.Response:
        query = body.get("query")
        if not isinstance(query, str) or not query:
            raise _Problem(422, [{"loc": ["body", "query"], "msg": "Field required"}])
        limit = int(body.get("limit") or 10)
        pool = [m for m in pool if _matches(m, body.get("filters"))]
        scored = [(score, m) for m in pool if (score := _overlap(query, m["content"])) > 0]
        scored.sort(key=lambda pair: pair[0], reverse=True)
        return web.json_response([m for _, m in scored[:limit]])

    async def _workspace_search(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        return self._search(workspace.messages, await self._body(request))

    async def _session_search(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        session = self._session_of(workspace, request)
        pool = [m for m in workspace.messages if m["session_id"] == session["id"]]
        return self._search(pool, await self._body(request))

    async def _peer_search(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        peer_id = request.match_info["peer"]
        pool = [m for m in workspace.messages if m["peer_id"] == peer_id]
        return self._search(pool, await self._body(request))

    # -- representation --------------------------------------------------------------------

    def _markdown(self, workspace: Workspace, observer: str, observed: str, top: int) -> str:
        """The server's ``Representation.format_as_markdown`` layout."""
        about = [
            c
            for c in workspace.conclusions.values()
            if c["observer_id"] == observer and c["observed_id"] == observed
        ][-top:]
        sections = []
        for level, title in (("explicit", "Explicit"), ("deductive", "Deductive")):
            lines = [
                f"[{c['created_at'][:19].replace('T', ' ')}] {c['content']}"
                for c in about
                if c["level"] == level
            ]
            if lines:
                sections.append(f"## {title} Observations\n\n" + "\n".join(lines) + "\n")
        return "\n".join(sections)

    async def _representation(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        observer = request.match_info["peer"]
        if observer not in workspace.peers:
            raise _Problem(404, "Peer not found")
        body = await self._body(request)
        observed = body.get("target") or observer
        top = int(body.get("max_conclusions") or 25)
        return web.json_response(
            {"representation": self._markdown(workspace, observer, observed, top)}
        )

    async def _peer_context(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        observer = request.match_info["peer"]
        if observer not in workspace.peers:
            raise _Problem(404, "Peer not found")
        observed = request.query.get("target") or observer
        top = int(request.query.get("max_conclusions") or 25)
        return web.json_response(
            {
                "peer_id": observer,
                "target_id": observed,
                "representation": self._markdown(workspace, observer, observed, top),
                "peer_card": None,
            }
        )

    # -- conclusions -----------------------------------------------------------------------

    def _conclusion(
        self,
        workspace_id: str,
        observer: str,
        observed: str,
        content: str,
        session_id: str | None,
    ) -> dict[str, Any]:
        workspace = self.workspaces[workspace_id]
        conclusion_id = _new_id()
        record: dict[str, Any] = {
            "id": conclusion_id,
            "content": content,
            "observer_id": observer,
            "observed_id": observed,
            "session_id": session_id,
            "level": "explicit",
            "source_ids": None,
            "times_derived": 1,
            "created_at": _now(),
        }
        workspace.conclusions[conclusion_id] = record
        return record

    async def _conclusions_create(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        body = await self._body(request)
        batch = body.get("conclusions")
        if not isinstance(batch, list) or not 1 <= len(batch) <= 100:
            raise _Problem(422, [{"loc": ["body", "conclusions"], "msg": "1 to 100 items"}])
        created = []
        for item in batch:
            content = item.get("content")
            if not isinstance(content, str) or not content:
                raise _Problem(422, [{"loc": ["body", "content"], "msg": "min length 1"}])
            for key in ("observer_id", "observed_id"):
                if item.get(key) not in workspace.peers:
                    raise _Problem(404, f"Peer {item.get(key)!r} not found")
            session_id = item.get("session_id")
            if session_id is not None and session_id not in workspace.sessions:
                raise _Problem(404, "Session not found")
            created.append(
                self._conclusion(
                    workspace.id, item["observer_id"], item["observed_id"], content, session_id
                )
            )
        return web.json_response(created)

    async def _conclusions_list(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        body = await self._body(request)
        found = [c for c in workspace.conclusions.values() if _matches(c, body.get("filters"))]
        found.reverse()  # newest first, as the server orders them
        return web.json_response(_page(found, request))

    async def _conclusions_query(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        body = await self._body(request)
        query = body.get("query")
        if not isinstance(query, str) or not query:
            raise _Problem(422, [{"loc": ["body", "query"], "msg": "Field required"}])
        top_k = int(body.get("top_k") or 10)
        pool = [c for c in workspace.conclusions.values() if _matches(c, body.get("filters"))]
        scored = [(score, c) for c in pool if (score := _overlap(query, c["content"])) > 0]
        scored.sort(key=lambda pair: pair[0], reverse=True)
        return web.json_response([c for _, c in scored[:top_k]])

    async def _conclusion_get(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        record = workspace.conclusions.get(request.match_info["conclusion"])
        if record is None:
            raise _Problem(404, "Conclusion not found")
        return web.json_response(record)

    async def _conclusion_delete(self, request: web.Request) -> web.Response:
        workspace = self._ws(request)
        if workspace.conclusions.pop(request.match_info["conclusion"], None) is None:
            raise _Problem(404, "Conclusion not found")
        return web.Response(status=204)
