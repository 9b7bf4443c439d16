"""Absolute links into the browser pages: a match's invite page and a seat's table (the pages and the
routes both give them; outside both packages, so neither imports the other's package for them)."""

from __future__ import annotations

from flask import request


def base_url() -> str:
    """This request's scheme and host (as the client addressed the service)."""
    return request.host_url.rstrip("/")


def invite_url(match_id: str) -> str:
    """The invite page: a friend picks a display name and takes the next seat."""
    return f"{base_url()}/join/{match_id}"


def play_url(match_id: str, token: str) -> str:
    """The seat's table. The token rides in the fragment (never sent to a server, never in a log);
    the page moves it into an HttpOnly cookie and drops it from the address bar at once."""
    return f"{base_url()}/play/{match_id}#seat={token}"
