"""Replay viewer: the frames of a match (frames.py, from the engine only) and the page's assets.

The service serves them (service/http/routes/replays.py, at /replay/<id>); this package imports nothing
of the service (tests/project/test_architecture.py).
"""

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"  # the page's JS and CSS
TEMPLATES = Path(__file__).resolve().parent / "templates"  # replay.html and its 404 page
