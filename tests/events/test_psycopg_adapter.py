"""The one adapter that changes a library's attribute (events.connection.cooperate_psycopg): psycopg
picks its C wait function at import, which under gevent would block every greenlet of a worker while
one waits for PostgreSQL. These tests fail when psycopg changes what the adapter relies on."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_psycopg_still_names_the_wait_functions_the_adapter_swaps():
    """Given psycopg as installed, its waiting module still has `wait`, `wait_c` and `wait_select`,
    and picks the C one at import (the premise of the adapter)."""
    out = _run(
        """
        import psycopg.waiting as w
        print(callable(w.wait_select), w.wait is getattr(w, "wait_c", None))
        """
    )
    assert out == "True True"


def test_under_gevent_the_adapter_makes_psycopg_wait_through_select():
    """Given psycopg imported before gevent patched the process (gunicorn's master), when the app's
    start-up calls cooperate_psycopg in a patched worker, then psycopg waits through `select`."""
    out = _run(
        """
        import psycopg.waiting as w
        from gevent import monkey
        monkey.patch_all()
        from events import cooperate_psycopg
        cooperate_psycopg()
        print(w.wait is w.wait_select)
        """
    )
    assert out == "True"


def test_without_gevent_the_adapter_changes_nothing():
    out = _run(
        """
        import psycopg.waiting as w
        before = w.wait
        from events import cooperate_psycopg
        cooperate_psycopg()
        print(w.wait is before)
        """
    )
    assert out == "True"
