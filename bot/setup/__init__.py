"""Setting up: from nothing to a checked configuration, and the data folder's permissions.

::

    init.py           ``personad init``: a config, a user and a persona in one command
    config.py         the configuration's typed settings
    config_loader.py  the TOML file, the environment over it, one line a problem
    envfiles.py       ``.env`` files beside the config
    preflight.py      the one validation ``run`` and ``check-config`` share
    probe.py          ``check-config --probe``: each configured service tried live
    permissions.py    everything under the data folder is the user's alone (0700, 0600)
"""

__all__: list[str] = []
