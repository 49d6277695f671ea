"""What every console request passes before its handler: host, session, CSRF, headers.

- The ``Host`` header must be one the config allows (``http.allowed_hosts``; by default
  127.0.0.1, localhost and [::1] on the port the request came in on), so a page on another
  name that resolves to this machine (DNS rebinding) gets nothing.
- A state-changing request from another site is refused: its ``Origin``, when sent, must be
  an allowed host, and it must carry the session's CSRF token (form field ``csrf`` or header
  ``X-CSRF-Token``; a multipart body, which carries files, in the header only). The session
  cookie is SameSite=Strict as well.
- Pages other than sign-in and static files want a signed-in browser of a configured user;
  others (a user since taken out of the config too) are sent to ``/login``.
- Every console response, an error a handler raised included, carries the security headers
  (:func:`add_headers`, as it goes out); no response names the server's software or version.

The bearer-token API keeps its own paths; :func:`is_console_request` tells them apart
(``POST /setup/persona`` with an ``Authorization`` header is the API's).
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import web

from bot.web.auth import WebSession
from bot.web.state import CONSOLE, SESSION
from bot.web.views import read_form

__all__ = [
    "COOKIE",
    "add_headers",
    "console_guard",
    "host_allowed",
    "is_console_request",
    "secure_request",
]

COOKIE = "personad_session"

_PREFIXES = ("/login", "/logout", "/static/", "/u/", "/admin", "/favicon.ico")
_PUBLIC = ("/login", "/static/", "/favicon.ico")
_SAFE = ("GET", "HEAD", "OPTIONS")
_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; media-src data: blob:; style-src 'self';"
        " script-src 'self';"
        " form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def is_console_request(request: web.Request) -> bool:
    path = request.path
    if path == "/" or path.startswith(_PREFIXES):
        return True
    if path == "/setup/persona":
        return request.method in _SAFE or "Authorization" not in request.headers
    return False


def _allowed(request: web.Request) -> list[str]:
    configured = request.app[CONSOLE].daemon.config.http.allowed_hosts
    if configured:
        return [host.lower() for host in configured]
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    port = sockname[1] if sockname else request.app[CONSOLE].daemon.http_port
    return [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]


def host_allowed(request: web.Request, host: str) -> bool:
    """Whether ``host`` (``name`` or ``name:port``) is one the console answers to; an allowed
    entry without a port allows the name on any port."""
    host = host.lower()
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return any(
        host == entry or (name == entry and ":" not in entry.strip("[]"))
        for entry in _allowed(request)
    )


def secure_request(request: web.Request) -> bool:
    """Whether the browser reached us over TLS: configured so, or a trusted proxy says so."""
    http = request.app[CONSOLE].daemon.config.http
    if http.secure_cookies:
        return True
    forwarded = request.headers.get("X-Forwarded-Proto", "").lower() == "https"
    return forwarded and (request.remote or "") in http.trusted_proxies


async def _csrf_ok(request: web.Request, session: WebSession) -> bool:
    """The token in the header, or in a plain form's ``csrf`` field. A multipart body (files)
    must carry it in the header: reading it for the field would spool its files to disk."""
    given = request.headers.get("X-CSRF-Token")
    if given is None and request.content_type == "application/x-www-form-urlencoded":
        form = await read_form(request)
        value = form.get("csrf")
        given = value if isinstance(value, str) else None
    return given is not None and hmac.compare_digest(given.encode(), session.csrf.encode())


def _refuse(status: int, text: str) -> web.Response:
    return web.Response(status=status, text=text)


async def add_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Set on each response as it goes out (``on_response_prepare``), so an error a handler
    raised gets them too: a console page is never framed, sniffed or, when private, kept by
    the browser (not even Back shows it)."""
    response.headers["Server"] = "personad"  # not the software and version serving it
    if not is_console_request(request):
        return
    for name, value in _HEADERS.items():
        response.headers.setdefault(name, value)
    if not request.path.startswith(_PUBLIC):
        response.headers.setdefault("Cache-Control", "no-store")


@web.middleware
async def console_guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    if not is_console_request(request):
        return await handler(request)
    if not host_allowed(request, request.host):
        return _refuse(403, "This address is not one the console answers to (http.allowed_hosts).")
    session: WebSession | None = None
    cookie = request.cookies.get(COOKIE)
    if cookie:
        session = await request.app[CONSOLE].store.session(cookie)
    if session is not None and session.user not in request.app[CONSOLE].daemon.config.users:
        session = None  # a user taken out of the config (and reloaded) is signed out
    request[SESSION] = session
    public = request.path.startswith(_PUBLIC)
    if request.method not in _SAFE:
        origin = request.headers.get("Origin")
        if origin is not None and (
            origin == "null" or not host_allowed(request, urlsplit(origin).netloc)
        ):
            return _refuse(403, "Cross-site request refused.")
        if not public and (session is None or not await _csrf_ok(request, session)):
            return _refuse(403, "This form has expired or came from elsewhere; reload the page.")
    if session is None and not public:
        if request.method in _SAFE:
            raise web.HTTPFound("/login")
        return _refuse(403, "Sign in first.")
    return await handler(request)
