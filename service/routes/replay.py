"""The replay viewer's blueprint (page, frames.json, static files), defined in replay_viewer."""
from __future__ import annotations

from replay_viewer.web import blp

__all__ = ["blp"]
