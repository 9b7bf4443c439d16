"""What every page module shares: rendering a page with its CSRF token, setting a cookie, the CSRF
check of a page's JSON helper, and reading its JSON body (service/http/pages/auth.py)."""

from __future__ import annotations

from flask import Response, g, render_template, request

from ..problems import ApiError
from ..routes.variants import describe
from . import auth


def csrf_cookie(response: Response) -> Response:
    """Every page leaves a CSRF cookie (readable by the page's script; see auth.py)."""
    if request.cookies.get(auth.CSRF_COOKIE) is None and getattr(g, "csrf", None):
        set_cookie(response, auth.CSRF_COOKIE, g.csrf, http_only=False)
    response.headers.setdefault("Cache-Control", "no-store")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response


def page(template: str, status: int = 200, **context) -> Response:
    g.csrf = request.cookies.get(auth.CSRF_COOKIE) or auth.new_csrf()
    html = render_template(template, csrf=g.csrf, variants=describe(), **context)
    return Response(html, status=status, mimetype="text/html")  # its security headers: service/http/headers.py


def set_cookie(
    response: Response, name: str, value: str, *, http_only: bool = True, max_age: int = auth.MAX_AGE
) -> None:
    response.set_cookie(
        name, value, max_age=max_age, path="/", httponly=http_only, samesite="Lax", secure=request.is_secure
    )


def check_csrf() -> None:
    if not auth.csrf_ok(
        request.cookies, request.headers.get(auth.CSRF_HEADER), request.headers.get("Origin"), request.host
    ):
        raise ApiError(403, "csrf_failed", f"send the {auth.CSRF_HEADER} header from this site's own pages")


def body() -> dict:
    found = request.get_json(silent=True)
    if not isinstance(found, dict):
        raise ApiError(400, "invalid_body", "send a JSON object")
    return found
