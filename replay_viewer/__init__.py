"""Replay viewer: a web page that steps through a finished match, served at /replay/<id>."""
