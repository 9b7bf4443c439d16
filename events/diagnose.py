"""Why a store could not be opened or migrated, as one line: the cause and the fix.

`explain(exc, target)` looks through the exception and its causes (a psycopg error wrapped in
StorageUnavailable, a SchemaError, SQLite's "unable to open") and answers "cause; fix", or None for
an error it does not know (the caller then shows it as it is). Each answer names the database
without its password.
"""

from __future__ import annotations

import os
import re
from typing import Optional
from urllib.parse import urlsplit

from .migrations import SchemaError
from .postgres import is_postgres_url, safe_url

GRANTS = "docs/OPERATIONS.md, privileges"


def explain(exc: BaseException, target: str) -> Optional[str]:
    """One line, "cause; fix", for a failure to open or migrate the store at `target`; or None."""
    seen: set[int] = set()
    error: Optional[BaseException] = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        answer = _one(error, target)
        if answer is not None:
            return answer
        error = error.__cause__ or error.__context__
    return None


def _one(exc: BaseException, target: str) -> Optional[str]:
    if isinstance(exc, SchemaError):
        return f"{exc.message}; {exc.fix}"
    if is_postgres_url(target):
        return _postgres(exc, target)
    text = str(exc).lower()
    if "unable to open database file" in text or "cannot be opened" in text:
        folder = os.path.dirname(os.path.abspath(target))
        why = "its folder does not exist" if not os.path.isdir(folder) else "it cannot be created or opened there"
        return f"cannot open the SQLite file {os.path.abspath(target)}: {why}; create the folder or pick another path"
    if "file is not a database" in text:
        return f"{os.path.abspath(target)} is not a SQLite database; point the database setting at the right file"
    if "readonly database" in text or "read-only" in text:
        return f"the SQLite file {os.path.abspath(target)} is read-only; make it writable for this user"
    return None


def _postgres(exc: BaseException, target: str) -> Optional[str]:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        return None
    where = safe_url(target)
    parts = urlsplit(target)
    user = parts.username or os.environ.get("PGUSER") or "(your login name)"
    database = parts.path.lstrip("/") or user
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return (
            f"the database role {user} lacks a privilege at {where} ({text}); grant what a node needs "
            f"({GRANTS}) or run `tilefold migrate` as the schema's owner"
        )
    if isinstance(exc, psycopg.errors.LockNotAvailable):
        return (
            f"a table at {where} is in use by running nodes and the schema change could not lock it "
            "in time; stop every node, then run `tilefold migrate` again"
        )
    invalid = isinstance(exc, psycopg.OperationalError) and bool(
        re.search(r"invalid .*(value|option|uri)", text.lower())
    )
    if invalid or (isinstance(exc, psycopg.ProgrammingError) and not isinstance(exc, psycopg.errors.UndefinedTable)):
        return (
            f"the PostgreSQL URL is not valid ({text}); write it as "
            "postgresql://USER:PASSWORD@HOST:5432/DATABASE (postgres:// works too)"
        )
    if not isinstance(exc, psycopg.OperationalError):
        return None
    low = text.lower()
    if (
        "password authentication failed" in low
        or "no password supplied" in low
        or re.search(r"role .* does not exist", low)
    ):
        return (
            f"PostgreSQL refused the credentials of role {user} at {where} ({text}); "
            "fix the user and password in the URL (or ~/.pgpass)"
        )
    if re.search(r"database .* does not exist", low):
        return f"there is no database {database!r} at {where}; create it (createdb -O {user} {database}) or fix the URL"
    if "could not translate host name" in low or "name or service not known" in low:
        return f"the host {parts.hostname!r} in {where} is not known; fix the host in the URL"
    if "connection refused" in low or "no such file or directory" in low or "could not connect" in low:
        return (
            f"nothing answers at {where} (the PostgreSQL server is down, or the host or port is wrong); "
            "start PostgreSQL or fix the URL"
        )
    if "timeout" in low or "timed out" in low:
        return f"the PostgreSQL server at {where} did not answer in time; check that it runs and that the network lets you reach it"
    return f"PostgreSQL at {where} failed: {text}; check the server and the URL"
