"""Writes the golden match logs of tests/service/test_golden_logs.py (run once per new rules version,
never to make a failing golden test pass): `python tests/service/golden/make_logs.py`.

For each variant and rules version, one finished one-hand match as the service exports it (ndjson):
rules version 2 played through the service by its bots; rules version 1 (no `rules_version`, no
recorded decisions) decided by the engine under version 1 after the same match's service rows, its
hash chain computed as the store computes it. Beside them, digests.json: what folding each log and
replaying it (replay_viewer frames, for everyone and for seat 0) gave when it was written.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2]), str(HERE.parents[1])]

import engine  # noqa: E402
from engine.selfplay import seeds_from  # noqa: E402
from engine.audit import ENGINE_EVENT_TYPES  # noqa: E402
from events import compute_hash  # noqa: E402
from service.usecases.match_log import to_ndjson  # noqa: E402

from audit_support import finished_match, rows_of  # noqa: E402
from golden_digests import digests  # noqa: E402

RECORDED_AT = "2026-01-01T00:00:00.000000+00:00"


def _v1_engine_log(variant: str, options: dict, label: str) -> list[dict]:
    state = engine.initial_state()
    events, state = engine.step(
        state, {"action": "start_match", "variant": variant, "options": options, "rules_version": 1}
    )
    log, seeds = list(events), seeds_from(label)
    while state.phase != "match_over":
        if state.needs_new_hand:
            command = {"action": "start_hand", "seed": next(seeds)}
        else:
            seat = engine.pending_seats(state)[0]
            command = dict(engine.bot_action(state, seat), seat=seat)
        events, state = engine.step(state, command)
        log.extend(events)
    return json.loads(json.dumps(log))


def _v1_rows(v2_rows: list[dict], variant: str) -> list[dict]:
    service = [r for r in v2_rows if r["type"] not in ENGINE_EVENT_TYPES][:5]  # created, four seats
    options = service[0]["payload"]["options"]
    engine_rows = [
        {"type": e["type"], "payload": {k: v for k, v in e.items() if k != "type"}}
        for e in _v1_engine_log(variant, options, f"golden/{variant}/v1")
    ]
    rows, prev = [], ""
    for version, row in enumerate(service + engine_rows, 1):
        out = {
            "stream": service[0]["stream"],
            "version": version,
            "type": row["type"],
            "schema_version": 1,
            "payload": row["payload"],
            "recorded_at": RECORDED_AT,
        }
        prev = out["hash"] = compute_hash(prev, out)
        rows.append(out)
    return rows


def main() -> None:
    from service.app import create_app

    app = create_app({"DATABASE": tempfile.mkdtemp() + "/golden.db", "TESTING": True})
    client = app.test_client()
    made = {}
    for variant in engine.variants.names():
        match_id, _ = finished_match(app, variant, {"hands": 1})
        body = client.get(f"/api/matches/{match_id}/export?format=ndjson").get_data(as_text=True)
        (HERE / f"{variant}-rules2.ndjson").write_text(body, encoding="utf-8")
        v1 = _v1_rows(rows_of(body), variant)
        (HERE / f"{variant}-rules1.ndjson").write_text(to_ndjson(v1), encoding="utf-8")
    for path in sorted(HERE.glob("*.ndjson")):
        made[path.name] = digests(rows_of(path.read_text(encoding="utf-8")))
    (HERE / "digests.json").write_text(json.dumps(made, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
