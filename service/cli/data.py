"""`tilefold migrate`, `copy`, `restore` and `backup`: the commands that change or move a whole
database (events/migrations.py, events/copy.py; docs/STORE.md and docs/OPERATIONS.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from events import is_postgres_url

from .registry import command
from .database import open_store_for


# -- migrate -------------------------------------------------------------------------------
def _migrate_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", default=None, help="a postgresql:// URL or a SQLite file (default $TILEFOLD_DB or ./tilefold.db)"
    )
    parser.add_argument(
        "--check", action="store_true", help="only say which version the database has and what is pending (exit 1)"
    )


@command("migrate", "apply the pending schema migrations (numbered, each once, under a lock)", _migrate_args)
def migrate(args: argparse.Namespace) -> int:
    from .database import describe, target

    where = describe(target(args.db))
    if args.check:
        store = open_store_for(args.db, "inspect")
    else:
        store = open_store_for(args.db, "migrate", steps=keyed_steps(args.db))
    try:
        before = store.schema_version()
        pending = _pending(store)
    finally:
        store.close()
    print(json.dumps({"database": where, "schema_version": before, "pending": pending}), flush=True)
    return 1 if args.check and pending else 0


def keyed_steps(db: Any) -> dict:
    """The keyed migration steps, with the key directory beside `db` (TILEFOLD_KEYS): token
    verifiers of older matches, webhook secrets sealed (service/usecases/sealing.py)."""
    from events import KEYED_STEP

    from ..infra.clock import SystemClock, iso
    from ..infra.config import from_env
    from ..infra.keys import keyring_for
    from ..infra.notify import SEAL_LABEL, Webhooks
    from ..infra.tokens import KEY_LABEL, Tokens
    from ..usecases.sealing import keyed_step
    from .database import target

    keyring = keyring_for({**from_env(), "DATABASE": target(db)})
    tokens = Tokens(None, keyring.secret(KEY_LABEL))
    webhooks = Webhooks(None, keyring.secret(SEAL_LABEL))
    return {KEYED_STEP: keyed_step(tokens, webhooks, iso(SystemClock().now()))}


def _pending(store: Any) -> bool:
    from events import MigrationNeeded

    try:
        store.check_schema()
    except MigrationNeeded:
        return True
    return False


# -- copy / restore (moving a deployment between SQLite and PostgreSQL: events/copy.py) ----------
#: `copy` refuses a source whose newest event is younger than this (a server still writing to it)
QUIET_SECONDS = 5.0


def _copy_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="the store to copy from: a SQLite file or a postgresql:// URL")
    parser.add_argument("destination", help="the store to copy into (created if missing)")
    parser.add_argument("--page", type=int, default=1000, help="rows read per page of the source feed")
    parser.add_argument(
        "--live",
        action="store_true",
        help=f"copy although the source was written in the last {QUIET_SECONDS:g} s (a server still "
        "running on it): what it writes meanwhile is not copied; stop it and run copy again to catch up",
    )


@command(
    "copy", "copy every stream from SRC to DST (SQLite <-> PostgreSQL), verify every chain; rerun to resume", _copy_args
)
def copy(args: argparse.Namespace) -> int:
    return _copy(args, "copy", empty=False, live=args.live)


def _restore_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("backup", help="a backup made by `tilefold backup` (a SQLite file), or any store")
    parser.add_argument("destination", help="an EMPTY store to restore into: a SQLite file or a postgresql:// URL")
    parser.add_argument("--page", type=int, default=1000, help="rows read per page of the backup")


@command("restore", "bring a backup into an empty database and verify every chain", _restore_args)
def restore(args: argparse.Namespace) -> int:
    args.source = args.backup
    return _copy(args, "restore", empty=True, live=True)


def _copy(args: argparse.Namespace, name: str, *, empty: bool, live: bool) -> int:
    from events import Registry
    from events.copy import CopyRefused, copy_store, newest_age

    if not is_postgres_url(args.source) and not os.path.exists(args.source):
        print(f"tilefold {name}: no such SQLite file {args.source!r}", file=sys.stderr)
        return 2
    source = open_store_for(args.source, "read", registry=Registry())  # raw rows: no upcasting needed
    destination = open_store_for(args.destination, "serve", registry=Registry())  # no DDL on tables in use
    try:
        age = None if live else newest_age(source)
        if age is not None and age < QUIET_SECONDS:
            print(
                f"tilefold {name}: refused, nothing written: the source's newest event is {max(age, 0):.1f} s old, "
                "so a server may still be writing to it; stop it first (docs/STORE.md, moving a deployment), "
                "or pass --live to copy what is there now and run copy again after stopping it",
                file=sys.stderr,
            )
            return 2
        report = copy_store(
            source, destination, page=args.page, progress=_copy_progress, tables=_service_tables(), empty=empty
        )
    except CopyRefused as refused:
        print(f"tilefold {name}: {refused}", file=sys.stderr)
        return 2
    finally:
        source.close()
        destination.close()
    print(
        json.dumps(
            {
                "streams": report.streams,
                "rows_read": report.rows_read,
                "rows_written": report.rows_written,
                "side_rows": report.side_rows,
                "notices": report.notices,
                "source_moved": report.source_moved,
                "problems": [str(p) for p in report.problems],
                "mismatched": report.mismatched,
                "verified": report.ok,
            }
        ),
        flush=True,
    )
    if report.source_moved and not live:
        print(
            f"tilefold {name}: the source took writes during the copy: stop the server writing to it, "
            "then run copy again to catch up",
            file=sys.stderr,
        )
    return 0 if report.ok or (live and report.source_moved and not report.problems and not report.mismatched) else 1


def _service_tables() -> list[Any]:
    """The service's own tables to copy beside the events (initialise_store created them on the
    destination: events/side_tables.py). Each describes a match as of its head (a webhook is set by
    an event, a pending deadline is rewritten with every append, a token's verifier by the event
    that hands the token out): the source's rows replace the destination's for every stream copied.
    Sealed secrets and verifiers are copied as they are: the destination needs the same key
    directory (TILEFOLD_KEYS) to read them."""
    from events.copy import SideTable

    return [
        SideTable("tf_webhooks", ("stream", "seat"), ("stream", "seat", "url", "secret", "created_at"), True),
        SideTable("tf_decisions", ("stream", "seat"), ("stream", "seat", "since", "due_at", "version"), True),
        SideTable("tf_tokens", ("stream", "seat"), ("stream", "seat", "verifier", "created_at"), True),
        # accounts (service/infra/account_secrets.py); WebAuthn challenges are not copied (minutes long)
        SideTable("tf_account_keys", ("account",), ("account", "salt", "created_at")),
        SideTable("tf_passkeys", ("credential",), ("credential", "account", "sign_count", "created_at")),
        SideTable("tf_sessions", ("id",), ("id", "account", "label", "created_at")),
        SideTable("tf_session_seen", ("id",), ("id", "account", "last_seen")),
        SideTable("tf_push_session", ("id",), ("id", "account", "session")),
        SideTable("tf_api_tokens", ("id",), ("id", "ref", "account", "name", "created_at", "last_used")),
        SideTable("tf_recovery", ("verifier",), ("verifier", "account", "created_at")),
        SideTable("tf_push", ("id",), ("id", "account", "subscription", "created_at")),
    ]


def _copy_progress(report: Any) -> None:
    print(f"copied {report.rows_written} of {report.rows_read} rows read so far", file=sys.stderr, flush=True)


# -- backup ---------------------------------------------------------------------------------
def _backup_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the backup to write: a new SQLite file (never overwritten)")
    parser.add_argument("--db", default=None, help="the database to back up (default $TILEFOLD_DB or ./tilefold.db)")


@command("backup", "take a consistent online copy of the database into a new SQLite file and verify it", _backup_args)
def backup(args: argparse.Namespace) -> int:
    from events import Registry
    from events.copy import backup_store

    if os.path.exists(args.file):
        print(f"tilefold backup: {args.file} exists; a backup never overwrites a file", file=sys.stderr)
        return 2
    store = open_store_for(args.db, "read", registry=Registry())  # a read-only role may take backups
    try:
        report = backup_store(store, args.file, tables=_service_tables())
    finally:
        store.close()
    print(
        json.dumps(
            {
                "backup": os.path.abspath(args.file),
                "streams": report.streams,
                "events": report.events,
                "problems": [str(p) for p in report.problems],
                "mismatched": report.mismatched,
                "verified": report.ok,
            }
        ),
        flush=True,
    )
    return 0 if report.ok else 1
