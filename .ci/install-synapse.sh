#!/usr/bin/env bash
# Install a Synapse homeserver for the Matrix tests into .venv-synapse (next to .venv).
# Idempotent: does nothing when that venv already imports synapse. Quiet unless it fails.
# Override the interpreter with PYTHON=python3.12 and the package with SYNAPSE_SPEC=...
set -euo pipefail
cd "$(dirname "$0")/.."
venv=".venv-synapse"
python="${PYTHON:-python3}"
spec="${SYNAPSE_SPEC:-matrix-synapse}"

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import synapse" 2>/dev/null; then
  exit 0
fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! { "$python" -m venv "$venv" \
       && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip \
       && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$spec"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "install-synapse: could not install $spec into $venv" >&2
  exit 1
fi
"$venv/bin/python" -c "import synapse" >/dev/null
echo "install-synapse: $("$venv/bin/python" -c 'import synapse; print(synapse.__version__)') in $venv"
