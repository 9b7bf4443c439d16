"""The keyed migration step: what `tilefold migrate` rewrites with the key directory (events/migrations.py,
the step named `events.side_tables.KEYED_STEP`; docs/STORE.md, "Tokens").

* **Token verifiers of older matches.** Matches made before `tf_tokens` existed carry their token
  hashes (SHA-256) in `match_created` (the owner's) and `seat_joined` / `seat_reissued` (a seat's).
  Events are immutable and hash-chained, so those stay where they are; the step MACs each stream's
  latest hash per seat into `tf_tokens` (service/infra/tokens.py), and from then on tokens are checked
  there only. Imported matches get none (their seats belong to another server's tokens).
* **Webhook secrets registered before sealing** (plain text in `tf_webhooks`) are sealed with the
  key directory's sealing key, as a new registration is (service/infra/notify.py).

It runs inside the migration's transaction, so a migration that fails leaves everything as it was.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from ..infra.notify import SEALED, Webhooks
from ..infra.tokens import OWNER, Tokens
from ..model import room as rooms
from ..model.match import STREAM_PREFIX
from .match_log import IMPORT_PREFIX

GRANTS = (rooms.MATCH_CREATED, rooms.SEAT_JOINED, rooms.SEAT_REISSUED)  # the events that hand out a token


def keyed_step(tokens: Tokens, webhooks: Webhooks, now: str) -> Callable[[Any], None]:
    """The step, given a connection taking `?` placeholders (either backend)."""

    def step(conn: Any) -> None:
        for (stream, seat), digest in legacy_token_hashes(conn).items():
            tokens.digest_writer(stream, seat, digest, now)(conn)
        plain = conn.execute("SELECT stream, seat, secret FROM tf_webhooks WHERE secret NOT LIKE ?", [SEALED + "%"])
        for stream, seat, secret in plain.fetchall():
            conn.execute(
                "UPDATE tf_webhooks SET secret = ? WHERE stream = ? AND seat = ?",
                [webhooks.seal(stream, int(seat), secret), stream, seat],
            )

    return step


def legacy_token_hashes(conn: Any) -> dict[tuple[str, int], str]:
    """{(match stream, seat or OWNER): the token hash its events last gave it}, imported matches left out."""
    imported = {
        stream[len(IMPORT_PREFIX) :]
        for (stream,) in conn.execute(
            "SELECT stream FROM stream_heads WHERE stream LIKE ?", [IMPORT_PREFIX + "%"]
        ).fetchall()
    }
    rows = conn.execute(
        f"SELECT stream, type, payload FROM events WHERE type IN ({', '.join('?' for _ in GRANTS)}) "
        "ORDER BY stream, version",
        list(GRANTS),
    ).fetchall()
    held: dict[tuple[str, int], str] = {}
    for stream, kind, text in rows:
        if not stream.startswith(STREAM_PREFIX) or stream[len(STREAM_PREFIX) :] in imported:
            continue
        payload = json.loads(text)
        if kind == rooms.MATCH_CREATED and payload.get("owner_token_hash"):
            held[(stream, OWNER)] = payload["owner_token_hash"]
        elif kind != rooms.MATCH_CREATED and payload.get("token_hash"):
            held[(stream, int(payload["seat"]))] = payload["token_hash"]
    return held
