"""Security headers on every answer: pages get a Content-Security-Policy that forbids framing,
API answers a policy that loads nothing, and every answer `X-Content-Type-Options: nosniff`.

One hook for the whole app, so a page added later (or one served by another blueprint, like the
replay viewer and its 404 page) cannot be left without them.
"""

from __future__ import annotations

from flask import Flask, Response

#: the browser pages: their own scripts, styles and the API only; no page may be framed
PAGE_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
#: anything else (JSON, problem+json, ndjson, text exports, CSV): a document that loads nothing
API_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox"


def install(app: Flask) -> None:
    app.after_request(seal)


def seal(response: Response) -> Response:
    headers = response.headers
    headers["X-Content-Type-Options"] = "nosniff"
    mimetype = response.mimetype or ""
    if mimetype in ("text/javascript", "application/javascript", "text/css") or mimetype.startswith("image/"):
        return response  # static files: nosniff is what fits them
    headers["X-Frame-Options"] = "DENY"
    if mimetype == "text/html":
        headers.setdefault("Content-Security-Policy", PAGE_POLICY)
    else:
        headers.setdefault("Content-Security-Policy", API_POLICY)
    return response
