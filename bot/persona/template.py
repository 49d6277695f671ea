"""Making a new persona folder from a template.

Templates are the folders under the project's ``personas/`` directory, each named for the
persona it makes (``inara``, ``developer``, ``tina``, ``wintermute``, the seed's four, and
``orac``, ``sage``); ``{{user}}``, ``{{persona}}``
and ``{{Persona}}`` (capitalised) in their files are replaced by the new persona's user and
name. ``holly`` and ``brian``, the names two templates had when they were named for people,
still work as ``--template`` (:data:`TEMPLATE_ALIASES`). Every file of the layout is
created, empty where the template has none, and the ``sessions/`` folder is made ready.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bot.daemon.errors import PersonaError
from bot.persona.atomic import atomic_write_text
from bot.persona.names import validate_name
from bot.persona.store import PERSONA_FILES, PersonaStore

__all__ = [
    "TEMPLATES_DIR",
    "TEMPLATE_ALIASES",
    "available_templates",
    "create_persona",
    "template_dir",
    "template_summary",
]


def _templates_dir() -> Path:
    """``$PERSONAD_TEMPLATES``, else the source checkout's ``personas/``, else the copy an
    install puts in ``<prefix>/share/personad/personas``."""
    given = os.environ.get("PERSONAD_TEMPLATES")
    if given:
        return Path(given)
    checkout = Path(__file__).resolve().parent.parent.parent / "personas"
    if checkout.is_dir():
        return checkout
    return Path(sys.prefix) / "share" / "personad" / "personas"


TEMPLATES_DIR = _templates_dir()

_EMPTY_JSON = ("TASKS.json", "CRONS.json")

#: former template names (people's names, not personas'), so scripts that give them still work
TEMPLATE_ALIASES = {"holly": "orac", "brian": "sage"}


def available_templates(templates_dir: Path = TEMPLATES_DIR) -> list[str]:
    if not templates_dir.is_dir():
        return []
    return sorted(p.name for p in templates_dir.iterdir() if (p / "IDENTITY.md").is_file())


def template_summary(name: str, templates_dir: Path = TEMPLATES_DIR) -> str:
    """The ``- Role:`` line of a template's IDENTITY.md, to describe it in a list."""
    text = _template_text(templates_dir / name, "IDENTITY.md")
    for line in text.splitlines():
        if line.startswith("- Role:"):
            return line.removeprefix("- Role:").strip()
    return ""


def _template_text(template_dir: Path | None, filename: str) -> str:
    if template_dir is not None:
        path = template_dir / filename
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return "[]\n" if filename in _EMPTY_JSON else ""


def template_dir(name: str, templates_dir: Path = TEMPLATES_DIR) -> Path:
    """The folder of the template ``name`` (or of the one it was once called), or a
    PersonaError naming the templates there are."""
    validate_name(name, "template")
    if name not in available_templates(templates_dir):
        name = TEMPLATE_ALIASES.get(name, name)
    found = templates_dir / name
    if not (found / "IDENTITY.md").is_file():
        known = ", ".join(available_templates(templates_dir)) or "none installed"
        raise PersonaError(f"no persona template named {name!r} (available: {known})")
    return found


def create_persona(
    store: PersonaStore,
    user: str,
    persona: str,
    *,
    template: str | None = None,
    templates_dir: Path = TEMPLATES_DIR,
) -> Path:
    """Create ``persona`` for ``user`` and return its folder; refuse to overwrite one."""
    validate_name(user, "user")
    validate_name(persona, "persona")
    chosen = template or (persona if persona in available_templates(templates_dir) else "inara")
    found = template_dir(chosen, templates_dir)
    chosen = found.name
    directory = store.directory(user, persona)
    if directory.exists():
        raise PersonaError(f"persona {persona!r} of user {user!r} already exists at {directory}")
    # "Inara" beside "inara" is a typo's twin: `/persona Inara` could not tell them apart,
    # and a data folder copied to a case-insensitive disk would merge them
    twin = next((p for p in store.list_personas(user) if p.casefold() == persona.casefold()), None)
    if twin is not None:
        raise PersonaError(
            f"user {user!r} has a persona {twin!r} already; {persona!r} differs from it only"
            " in case: pick another name"
        )
    try:
        for filename in PERSONA_FILES:
            text = _template_text(found, filename)
            text = text.replace("{{user}}", user).replace("{{persona}}", persona)
            text = text.replace("{{Persona}}", persona.capitalize())
            if chosen == "inara" and persona != "inara":
                text = text.replace("Inara", persona.capitalize())
            atomic_write_text(directory / filename, text, root=store.data_dir)
        (directory / "sessions").mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:  # a link on the way (refused), a full disk, no permission
        raise PersonaError(f"cannot create persona {persona!r} of user {user!r}: {exc}") from exc
    return directory
