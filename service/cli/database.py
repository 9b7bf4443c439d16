"""Which database a command opens, and a one-line refusal (exit 2) when it cannot or must not.

* `target(db)`: `--db`, else `TILEFOLD_DB`, else the SQLite default `./tilefold.db` — but never that
  default silently in a PostgreSQL deployment: when `TILEFOLD_DB` is unset and `DATABASE_URL`,
  `PGHOST`, `PGDATABASE` or `PGSERVICE` is set, the command refuses; and `TILEFOLD_REQUIRE_DB`
  (`postgresql` or `sqlite`) refuses a database of the other kind.
* `open_store_for(db, mode)`: "serve" (a node starting: applies only migrations that are
  safe beside running nodes), "migrate" (every pending one), "read" (no DDL at all: a read-only
  role may run it; the schema must be this code's), "inspect" (no DDL; any known version). A
  wrong URL, refused credentials, a server that is down, missing privileges or a schema newer
  than the code become `Refusal("cause; fix")` (events/diagnose.py), never a
  traceback.
"""

from __future__ import annotations

import os
from typing import Any, Optional

#: libpq's own settings: one of them set means this machine is meant to use PostgreSQL
POSTGRES_HINTS = ("DATABASE_URL", "PGHOST", "PGDATABASE", "PGSERVICE")
KINDS = {"postgresql": "postgresql", "postgres": "postgresql", "sqlite": "sqlite"}


class Refusal(Exception):
    """A command cannot start: the message is one line, the cause and the fix."""


def target(db: Optional[str] = None) -> str:
    """The database this command opens (refusing a silent SQLite default, see the module's doc)."""
    from events import is_postgres_url

    from ..infra.config import from_env

    explicit = db or os.environ.get("TILEFOLD_DB") or None
    chosen = explicit or from_env()["DATABASE"]
    if explicit is None:
        hints = [name for name in POSTGRES_HINTS if os.environ.get(name)]
        if hints:
            raise Refusal(
                f"TILEFOLD_DB is unset, so this would open the SQLite file {os.path.abspath(chosen)}, but "
                f"{', '.join(hints)} says this is a PostgreSQL deployment; set TILEFOLD_DB=postgresql://… "
                f"(or TILEFOLD_DB={chosen} to mean that SQLite file)"
            )
    required = (os.environ.get("TILEFOLD_REQUIRE_DB") or "").strip().lower()
    if required:
        if required not in KINDS:
            raise Refusal(f"TILEFOLD_REQUIRE_DB={required!r} is neither postgresql nor sqlite; set one of them")
        kind = "postgresql" if is_postgres_url(chosen) else "sqlite"
        if KINDS[required] != kind:
            shown = describe(chosen)
            raise Refusal(
                f"TILEFOLD_REQUIRE_DB says {KINDS[required]} but the database is {kind} ({shown}); "
                "set TILEFOLD_DB (or --db) to the deployment's database"
            )
    return chosen


def describe(database: str) -> str:
    """The database as printed: a PostgreSQL URL without its password, a SQLite file's full path."""
    from events import is_postgres_url

    if is_postgres_url(database):
        from urllib.parse import urlsplit

        parts = urlsplit(database)
        return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
    return os.path.abspath(database)


def open_store_for(db: Optional[str], mode: str, **options: Any) -> Any:
    """The store at `target(db)`, ready for `mode` ("serve", "migrate" or "read"); Refusal with the
    cause and the fix when it cannot be opened."""
    from events import initialise_store, is_postgres_url, open_store
    from events.diagnose import explain

    from ..model.catalogue import CATALOGUE

    where = target(db)
    options.setdefault("registry", CATALOGUE)  # the service's event types (a copy passes an empty one)
    if mode in ("read", "inspect") and not is_postgres_url(where) and not os.path.exists(where):
        raise Refusal(f"there is no SQLite file {os.path.abspath(where)}; set TILEFOLD_DB (or --db) to the database")
    try:
        if mode in ("read", "inspect"):
            store = open_store(where, **options)
            store.schema_version() if mode == "inspect" else store.check_schema()
            return store
        return initialise_store(where, online_only=(mode != "migrate"), **options)
    except Exception as exc:  # noqa: BLE001 - explained in one line when known, else raised as it is
        why = explain(exc, where)
        if why is None:
            raise
        raise Refusal(why) from None
