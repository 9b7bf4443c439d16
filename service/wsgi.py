"""WSGI entry point: `gunicorn 'service.wsgi:app'` (settings from TILEFOLD_* variables)."""

from .app import create_app

app = create_app()
