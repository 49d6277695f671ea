"""The web console: talk to a persona, see its mode, read and edit it, in the browser.

::

    app.py        mount_console(): pages, static files and the guard on the daemon's app
    guard.py      allowed Host, signed-in session, CSRF and Origin checks, security headers
    auth.py       one-time sign-in links, browser sessions, wrong passwords (personad.db)
    passwords.py  password hashes: made, checked (as costly for any name), their shape
    login.py      /login, /logout
    adapter.py    WebAdapter: the ``web`` platform; each conversation a room, read as events
    chat.py       a conversation page, its event stream, the mode indicator
    files.py      the Files panel: sizes against limits, the editor, the changelog and Undo
    onboarding.py /setup/persona: a template, a name, a few answers for USER.md
    schedule.py   reminders, tasks and scheduled jobs with their next time; add, edit, delete
    admin.py      /admin: adapters' health, users, distillation and "run now"
    search.py     the search box: conversations by date with marked words; the memory tab
    views.py      what handlers share: the signed-in user, own-persona checks, rendering
    state.py      the console's shared objects; DaemonView, what it uses of the daemon
"""

__all__: list[str] = []
