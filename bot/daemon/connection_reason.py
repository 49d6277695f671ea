"""Why a connection to a server failed, in words a person can act on.

aiohttp's errors print as reprs (``ClientConnectorError(ConnectionKey(host=...``); what a
person needs is the reason and, where the scheme is the likely mistake, the other scheme to
try. :func:`connection_reason` turns an exception from talking to ``url`` into that phrase:
``connection refused``, ``TLS handshake failed: is it http://?``. It never includes the URL's
path or query, which may carry a token (a Telegram Bot API URL does).
"""

from __future__ import annotations

import errno
import socket
import ssl
from urllib.parse import urlsplit

import aiohttp

__all__ = ["connection_reason", "scheme_hint", "where"]


def where(url: str) -> str:
    """``scheme://host:port`` of ``url``: safe to print (no path, query or credentials)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}" if parts.scheme else f"{host}{port}"


def scheme_hint(url: str) -> str:
    """The other scheme, as a question: an https URL to a plain server is the usual cause of a
    handshake that fails or never ends, and an http URL to a TLS port of a reset."""
    scheme = urlsplit(url).scheme
    if scheme == "https":
        return "is it http://?"
    if scheme == "http":
        return "is it https://?"
    return "is the address right?"


def _os_error(exc: OSError) -> str | None:
    code = exc.errno
    if code == errno.ECONNREFUSED:
        return "connection refused: nothing listens there"
    if code in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return "host unreachable"
    if code == errno.ECONNRESET:
        return "connection reset"
    if code == errno.ETIMEDOUT:
        return "connection timed out"
    if isinstance(exc, socket.gaierror):
        return "the host name does not resolve"
    return exc.strerror.lower() if exc.strerror else None


def connection_reason(exc: BaseException, url: str) -> str:
    """The reason ``exc`` (raised while talking to ``url``) gives, in words."""
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return "the server's TLS certificate is not trusted"
    if isinstance(exc, aiohttp.ClientSSLError | ssl.SSLError):
        return f"TLS handshake failed: {scheme_hint(url)}"
    if isinstance(exc, TimeoutError | aiohttp.ServerTimeoutError):
        hint = f" ({scheme_hint(url)})" if urlsplit(url).scheme == "https" else ""
        return f"no answer in time{hint}"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return f"the server closed the connection without answering: {scheme_hint(url)}"
    if isinstance(exc, aiohttp.ClientConnectorError):
        inner = exc.os_error
        if isinstance(inner, ssl.SSLError):
            return f"TLS handshake failed: {scheme_hint(url)}"
        return _os_error(inner) or "cannot connect"
    if isinstance(exc, aiohttp.InvalidURL):
        return "not a valid URL"
    if isinstance(exc, aiohttp.ClientResponseError):
        return f"HTTP {exc.status}"
    if isinstance(exc, aiohttp.ClientPayloadError | aiohttp.ClientOSError):
        if isinstance(exc, OSError) and (reason := _os_error(exc)):
            return reason
        return f"the connection broke: {scheme_hint(url)}"
    if isinstance(exc, OSError):
        return _os_error(exc) or type(exc).__name__
    text = str(exc).strip()
    return text.splitlines()[0][:120] if text else type(exc).__name__
