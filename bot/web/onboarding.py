"""``/setup/persona``: a new persona from a template, its USER.md seeded by a few answers.

The user picks a template, names the persona and answers a few questions about themselves;
the answers are added to USER.md (what the persona knows about its user), and the browser
lands in a chat with the new persona. ``POST /setup/persona`` with an ``Authorization``
header stays the bearer-token API's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import structlog
from aiohttp import web

from bot.daemon.errors import PersonadError
from bot.persona.template import available_templates, create_persona, template_summary
from bot.web.views import console, form_text, render, signed_in

__all__ = ["QUESTIONS", "setup_routes"]

log = structlog.get_logger(__name__)

#: (form field, question, the USER.md line it becomes)
QUESTIONS: tuple[tuple[str, str, str], ...] = (
    ("call_me", "What should it call you?", "Likes to be called"),
    ("days", "What fills your days (work, study, family)?", "Days are filled with"),
    ("answers", "How do you like answers: short, detailed, with lists?", "Likes answers"),
    ("keep_in_mind", "Anything it should always keep in mind?", "Always keep in mind"),
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _page(request: web.Request, problem: str = "", status: int = 200) -> web.Response:
    user = signed_in(request).user
    templates = [
        (name, template_summary(name).replace("{{user}}", user)) for name in available_templates()
    ]
    response = render(
        request,
        "setup.html",
        templates=templates,
        questions=QUESTIONS,
        problem=problem,
        first=not console(request).daemon.store.list_personas(user),
    )
    response.set_status(status)
    return response


async def setup_page(request: web.Request) -> web.Response:
    return _page(request)


def _about(answers: list[tuple[str, str]]) -> str:
    lines = [f"- {label}: {' '.join(answer.split())}" for label, answer in answers if answer]
    return "\n## From the first conversation's setup\n\n" + "\n".join(lines) + "\n" if lines else ""


async def create(request: web.Request) -> web.Response:
    user = signed_in(request).user
    name = (await form_text(request, "name")).strip().lower()
    template = await form_text(request, "template")
    store = console(request).daemon.store
    try:
        if template not in available_templates():
            raise PersonadError("unknown template", user_message="Pick one of the templates.")
        directory = create_persona(store, user, name, template=template)
    except PersonadError as exc:
        return _page(request, exc.user_message or str(exc), 400)
    answers = [(label, await form_text(request, field)) for field, _q, label in QUESTIONS]
    about = _about(answers)
    if about:
        text = (directory / "USER.md").read_text(encoding="utf-8").rstrip("\n") + "\n" + about
        await store.write(user, name, "USER.md", text)
    log.info("web.persona_created", template=template, answered=sum(1 for _l, a in answers if a))
    raise web.HTTPSeeOther(f"/u/{user}/{name}/chat")


def setup_routes(app: web.Application, setup_api: Handler) -> None:
    async def post(request: web.Request) -> web.StreamResponse:
        if "Authorization" in request.headers:
            return await setup_api(request)
        return await create(request)

    app.router.add_get("/setup/persona", setup_page)
    app.router.add_post("/setup/persona", post)
