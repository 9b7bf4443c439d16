"""Versioned schema migrations: numbered, each applied once under a lock, recorded in `schema_version`.

Each backend has its own numbered list (`events/schema.py` for SQLite, `events/pg_schema.py` for
PostgreSQL). A migration is *online* when it only creates what does not exist yet (a new table, a
function): it takes no lock on a table a running node uses, so a node starting beside running
ones may apply it. Any other (an ALTER TABLE, a trigger on `events`) runs only from `tilefold
migrate`, with the nodes stopped: a starting node that finds one pending refuses to start
(`MigrationNeeded`) instead of racing the live nodes for their tables' locks. On a fresh, empty
database every migration is online (no table is in use yet): `tilefold serve` creates the schema.

A database made before versions were recorded (no `schema_version` table) is *adopted* as
version 1 when it already has everything version 1 creates, else version 1 runs from `tilefold
migrate`. A recorded version above the code's is `SchemaTooNew`: the code is older than the
database, and starting it would write what the newer code does not expect.

A migration may also name a **keyed step** (`step`): rows it rewrites with a key this package never
holds (the service's key directory, outside the database). The caller that migrates passes the
step's function in `steps` (`tilefold migrate` does); it runs inside the migration's transaction,
after the migration's own statements, with a connection that takes `?` placeholders on either
backend. Without it, a database holding events is refused (`MigrationNeeded`: run `tilefold
migrate`); a database without events has nothing to rewrite, and the step is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Optional, Sequence

from .errors import EventStoreError

VERSION_DDL = """CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at TEXT    NOT NULL)"""


def applied_now() -> str:
    """The time a migration is recorded (the store's timestamp format)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    online: bool  # creates only new objects: safe beside running nodes
    apply: Callable[[Any], None]  # apply(conn), inside the migration's transaction
    step: Optional[str] = None  # a keyed step the caller supplies (see the module's doc)


#: keyed steps by name: step(conn) with `?` placeholders, inside the migration's transaction
Steps = Mapping[str, Callable[[Any], None]]


class SchemaError(EventStoreError):
    """The database's schema does not fit this code; `fix` says what to do (one line)."""

    def __init__(self, message: str, fix: str) -> None:
        self.message, self.fix = message, fix
        super().__init__(f"{message}; {fix}")


class SchemaTooNew(SchemaError):
    """The database's schema is newer than this code knows."""


class MigrationNeeded(SchemaError):
    """The schema is older than the code and the step to it may not run on a live database."""


@dataclass(frozen=True)
class Plan:
    """What a database needs: `current` version (0 = no schema), whether to `adopt` an unversioned
    complete schema as version 1, the migrations `todo`, and whether all of it may run `online`."""

    current: int
    adopt: bool
    todo: tuple[Migration, ...]
    online: bool

    @property
    def latest(self) -> int:
        return self.todo[-1].version if self.todo else self.current


def plan(
    recorded: Optional[int], has_events: bool, complete_v1: bool, migrations: Sequence[Migration], where: str
) -> Plan:
    """The plan for a database whose `schema_version` says `recorded` (None: no such table), that
    has an `events` table or not, and (unversioned) has everything version 1 creates or not."""
    latest = migrations[-1].version
    if recorded is not None and recorded > latest:
        raise SchemaTooNew(
            f"the database {where} has schema version {recorded}, this tilefold knows only up to {latest}",
            "run the newer tilefold that migrated it (or point TILEFOLD_DB at the right database)",
        )
    adopt = recorded is None and has_events and complete_v1
    current = recorded if recorded is not None else (1 if adopt else 0)
    todo = tuple(m for m in migrations if m.version > current)
    fresh = recorded is None and not has_events
    return Plan(current, adopt, todo, fresh or all(m.online for m in todo))


def run_step(migration: Migration, conn: Any, steps: Optional[Steps], holds_events: bool, where: str) -> None:
    """Run `migration`'s keyed step with `conn` (placeholders `?`), if it has one; MigrationNeeded
    when the caller supplied none and the database holds events it would rewrite."""
    if migration.step is None:
        return
    step = (steps or {}).get(migration.step)
    if step is not None:
        step(conn)
    elif holds_events:
        raise MigrationNeeded(
            f"migration {migration.version} ({migration.name}) of the database {where} rewrites rows "
            "with the server's key directory",
            "stop every node and run `tilefold migrate` (docs/OPERATIONS.md, upgrading)",
        )


def refuse_offline(found: Plan, where: str, latest: int) -> None:
    """MigrationNeeded unless `found` may run on a live database."""
    if not found.online:
        names = ", ".join(f"{m.version} ({m.name})" for m in found.todo if not m.online)
        raise MigrationNeeded(
            f"the database {where} has schema version {found.current}, this tilefold needs {latest}, "
            f"and migration {names} changes tables running nodes use",
            "stop every node and run `tilefold migrate` (docs/OPERATIONS.md, upgrading)",
        )


def refuse_older(found: Plan, where: str, latest: int) -> None:
    """MigrationNeeded when a migration is pending (a reader must not migrate: it may lack the
    rights). An unversioned schema that has all of version 1 reads as version 1 (adopting it is
    only a record, made by the next node or `tilefold migrate`)."""
    if found.todo:
        raise MigrationNeeded(
            f"the database {where} has schema version {found.current}, this tilefold needs {latest}",
            "run `tilefold migrate` with a role that may change the schema (docs/OPERATIONS.md, upgrading)",
        )
