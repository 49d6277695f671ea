"""Setting up: from nothing to a checked configuration, and the data folder's permissions.

::

    init.py            ``personad init``: a config, a user and a persona in one command
    init_questions.py  its answers: from the flags, or asked on the terminal
    init_files.py      what it writes: the config as TOML, the ``.env``
    config.py          the configuration's typed settings, the whole file
    config_llm.py      the ``[llm]`` section: backends and roles
    config_users.py    the ``[users.NAME]`` tables
    config_section.py  the base of every section: unknown keys refused
    config_loader.py   the TOML file, the environment over it, one line a problem
    envfiles.py        ``.env`` files beside the config
    preflight.py       the one validation ``run`` and ``check-config`` share
    probe.py           ``check-config --probe``: each configured service tried live
    permissions.py     everything under the data folder is the user's alone (0700, 0600)
"""

__all__: list[str] = []
