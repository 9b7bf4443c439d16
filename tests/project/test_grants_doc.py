"""docs/OPERATIONS.md, "The privileges a node needs": its block of grants names every table (and
sequence) the PostgreSQL migrations create, and nothing they do not, so a new side table cannot
be left out of the doc (tests/service/test_startup.py runs the same block against a real role)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "OPERATIONS.md"
BLOCK = re.compile(r"<!-- grants: node -->\n```sql\n(.*?)```", re.S)
GRANT = re.compile(r"^GRANT ([A-Z, ]+) ON (SCHEMA|SEQUENCE )?\s*([\w, ]+?) TO (\w+);$")
CREATED = re.compile(r"CREATE TABLE IF NOT EXISTS (\w+)", re.I)
SERIAL = re.compile(r"\b(\w+)\s+BIGSERIAL\b", re.I)


def node_grants() -> list[str]:
    """The grant statements of the doc's block, one per line."""
    (block,) = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    return [line for line in block.splitlines() if line.strip()]


class Recorder:
    """A connection that keeps the statements a migration runs (no database needed)."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def execute(self, statement: str, params: Any = None) -> "Recorder":
        self.statements.append(statement)
        return self


def migration_statements() -> list[str]:
    from events.migrations import VERSION_DDL
    from events.pg_schema import MIGRATIONS

    conn = Recorder()
    for migration in MIGRATIONS:
        migration.apply(conn)
    return [VERSION_DDL, *conn.statements]


def created_tables() -> set[str]:
    return {name for statement in migration_statements() for name in CREATED.findall(statement)}


def created_sequences() -> set[str]:
    found = set()
    for statement in migration_statements():
        tables = CREATED.findall(statement)
        for column in SERIAL.findall(statement):
            found.add(f"{tables[0]}_{column}_seq")
    return found


def granted() -> dict[str, set[str]]:
    """'table' / 'sequence' / 'schema' -> the names the doc's grants give privileges on."""
    out: dict[str, set[str]] = {"table": set(), "sequence": set(), "schema": set()}
    for line in node_grants():
        found = GRANT.match(line)
        assert found, f"not a GRANT the test reads: {line!r}"
        kind = (found.group(2) or "table").strip().lower()
        out[kind] |= {name.strip() for name in found.group(3).split(",")}
    return out


def test_the_migrations_are_read_whole():
    """Given the PostgreSQL migrations run on a recording connection, then the tables of each
    generation are there (the reading is not silently empty)."""
    tables = created_tables()
    assert {"events", "stream_heads", "schema_version", "tf_feed", "tf_leases", "tf_tokens"} <= tables
    assert {"tf_passkeys", "tf_sessions", "tf_recovery", "tf_challenges", "tf_account_keys"} <= tables
    assert {"tf_push", "tf_api_tokens"} <= tables
    assert created_sequences() == {"outbox_id_seq"}


def test_every_table_the_schema_creates_is_granted_to_a_node_and_no_other():
    """Given every table the PostgreSQL migrations create, when the doc's grants are read, then each
    table is named in them, and each name in them is such a table."""
    tables = created_tables()
    named = granted()["table"]
    assert sorted(tables - named) == [], "tables a node uses that docs/OPERATIONS.md does not grant"
    assert sorted(named - tables) == [], "grants in docs/OPERATIONS.md on tables no migration creates"


def test_every_sequence_is_granted_and_the_schema_is_used():
    assert granted()["sequence"] == created_sequences()
    assert len(granted()["schema"]) == 1
