"""README's "Playing over HTTP in a minute" works as written: its shell block is run against a fresh server."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from served import serving

ROOT = Path(__file__).resolve().parents[2]


def walkthrough() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Playing over HTTP in a minute", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="the walk-through uses curl and jq")
def test_the_curl_walkthrough_plays_a_legal_move(tmp_path):
    """Given a fresh server, when the README's block runs as written (only its address changed), then every
    command succeeds and the last one's move, picked from legal_actions, is accepted."""
    script = walkthrough()
    assert script.startswith("BASE=http://127.0.0.1:8000\n")
    with serving(tmp_path / "readme.db") as base:
        run = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script.replace("http://127.0.0.1:8000", base, 1)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert run.returncode == 0, run.stderr
    last = json.loads(run.stdout.strip().splitlines()[-1])
    assert last["accepted"] is True and last["version"] > 0


def test_ci_runs_the_readme_test_command_exactly():
    """Given the README's second block (install, then the test command), when .ci/run is read, then its
    last command is that test command, word for word: what CI runs is what a developer is told to run."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    install, command = blocks[1].strip().split(" && ", 1)
    assert install == "pip install -e '.[test]'"
    ci = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines() if line.strip()]
    assert ci[-1].strip() == command
