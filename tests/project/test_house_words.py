"""Words that point somewhere: no issue numbers in code, tests or docs (a comment says what its guard
protects), and the docs cite only files in this repository (docs/RULES.md owns the rule ids)."""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("engine", "events", "service", "replay_viewer", "bench", "tests", "docs", ".ci")
SUFFIXES = {".py", ".md", ".js", ".html", ".css", ".toml", ".sh", ""}
ISSUE = re.compile(r"\bissues? ?#?\d+|(?<![\w&/#])#[1-9]\d\b|\bissue\d+", re.IGNORECASE)
OUTSIDE = re.compile(r"\b(RULINGS|COORD)\.md\b")


def _texts():
    paths = [ROOT / "README.md", ROOT / "pyproject.toml"]
    for folder in FOLDERS:
        paths.extend(p for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    for path in paths:
        if path.exists() and "golden" not in path.parts and path.name != pathlib.Path(__file__).name:
            yield path.relative_to(ROOT), path.read_text(encoding="utf-8", errors="replace").splitlines()


def _hits(pattern: re.Pattern[str]) -> list[str]:
    return [
        f"{path}:{n}: {line.strip()[:120]}"
        for path, lines in _texts()
        for n, line in enumerate(lines, 1)
        if pattern.search(line)
    ]


def test_the_reader_finds_issue_numbers_and_outside_files():
    number = "13"  # built here, so this file holds no issue number of its own
    assert (
        ISSUE.search(f"a guard (issue {number})")
        and ISSUE.search(f"Waiting (#{number})")
        and ISSUE.search(f"issue{number}")
    )
    assert not ISSUE.search("color: #fff; K-13; H-4; &#13; seat #1 of url/#12; #3a3a3a")
    assert OUTSIDE.search("see RULINGS.md") and OUTSIDE.search(f"COORD.md, #{number}")


def test_no_issue_numbers_in_code_tests_or_docs():
    assert _hits(ISSUE) == []


def test_docs_and_code_cite_no_file_outside_the_repository():
    assert _hits(OUTSIDE) == []
