"""`tilefold scenario FILE`: play a preset hand through the engine and print its events and result."""

from __future__ import annotations

import argparse
import json
import sys

from engine.scenario import ScenarioActionError, ScenarioError, run_scenario

from .registry import _read, command


def _scenario_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="JSON scenario ('-' = stdin); see docs/CONTRACTS.md")


@command("scenario", "play a preset hand (exit 0 played, 1 illegal action, 2 malformed)", _scenario_args)
def scenario(args: argparse.Namespace) -> int:
    try:
        spec = json.loads(_read(args.file))
        result = run_scenario(spec)
    except (OSError, ValueError, ScenarioError) as exc:
        print(json.dumps({"error": "malformed", "message": str(exc)}, ensure_ascii=False), file=sys.stderr)
        return 2
    except ScenarioActionError as exc:
        print(json.dumps(exc.as_dict(), ensure_ascii=False))
        return 1
    print(json.dumps(result, ensure_ascii=False))
    return 0
