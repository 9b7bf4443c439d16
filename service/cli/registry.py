"""The `tilefold` subcommands' registry: `@command(name, help, configure)` registers `run(args) -> int`.

service/cli/__init__.py builds the parser from COMMANDS; each subcommand module registers its own.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable

#: name -> (configure(parser), run(args) -> exit code, help). Add a subcommand with @command.
COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int], str]] = {}


def command(name: str, help: str, configure: Callable[[argparse.ArgumentParser], None] = lambda p: None):
    """Register `run(args) -> int` as the subcommand `name`."""

    def decorate(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        COMMANDS[name] = (configure, run, help)
        return run

    return decorate


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as handle:
        return handle.read()
