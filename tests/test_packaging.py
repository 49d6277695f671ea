"""``pip install .`` from a checkout: the wheel holds what an install outside the checkout needs
(the code, the web console's templates, the persona templates) and the build leaves nothing
behind in the checkout (no ``build/``, no ``*.egg-info``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _checkout_copy(target: Path) -> Path:
    """The tracked files only, as a fresh clone has them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def test_building_the_wheel_leaves_the_checkout_clean(tmp_path: Path) -> None:
    checkout = _checkout_copy(tmp_path / "checkout")
    before = sorted(p.name for p in checkout.iterdir())
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", ".", "-w", str(wheels)],
        cwd=checkout,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    assert sorted(p.name for p in checkout.iterdir()) == before
    assert not list(checkout.rglob("*.egg-info"))
    (wheel,) = wheels.glob("personad-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "bot/daemon/cli.py" in names and "adapters/console/adapter.py" in names
    assert "bot/py.typed" in names
    assert any(n.startswith("bot/web/templates/") and n.endswith(".html") for n in names)
    assert any(n.startswith("bot/web/static/") for n in names)
    data = "personad-0.1.0.data/data/share/personad/personas/"
    for persona in (REPO / "personas").iterdir():
        for file in persona.iterdir():
            assert f"{data}{persona.name}/{file.name}" in names
    assert not any(n.startswith(("tests/", "bench/")) for n in names)
