"""The account page and its JSON helpers (docs/WEB.md, "Accounts"): sign up with a display name and a
passkey, sign in, add a passkey, recover with a code, claim this browser's seats, sign out (here,
everywhere), export, delete. Every helper is a POST under the pages' CSRF rule (but the profile and
the export, GETs), the ceremonies and recovery rate-limited per address (TILEFOLD_RATE_LIMIT_ACCOUNT);
each calls one use case of `Accounts` (service/usecases/accounts.py) with the session cookie.

The other pages hand the session to their use case (`reads()`, `service()`), which uses the
browser's own cookie for a match, else the seat its signed-in account holds there.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from ..problems import ApiError
from ..routes.declare import rate_limited
from ..services import services
from ..web import reads
from . import auth, common

blp = Blueprint("accounts", __name__, template_folder="templates")
blp.after_request(common.csrf_cookie)
LIMIT = "RATE_LIMIT_ACCOUNT"


def install(app: Flask) -> None:
    app.register_blueprint(blp)
    app.after_request(_session_used)


def _session_used(response: Response) -> Response:
    """A change the session cookie authorised (a write answered below 400, on a page helper or the
    API) is noted as the session's last use: its idle timeout counts from it (reads are not noted)."""
    session = _session()
    if session and request.method not in auth.SAFE_METHODS and response.status_code < 400:
        services().accounts.session_used(session)
    return response


def delegate_for(app: Flask):
    """The middleware's `delegate` (auth.CookieSeats): a session's token for a match, or None."""

    def delegate(session: str, match_id: str, owner: bool) -> Optional[str]:
        with app.app_context():
            try:
                return services(app).accounts.credential(session, match_id, owner)
            except Exception:  # noqa: BLE001 - no credential: the API answers as for no token
                return None

    return delegate


def _session() -> Optional[str]:
    return request.cookies.get(auth.SESSION_COOKIE)


def _origin() -> Optional[str]:
    """The origin a ceremony is asked from (browsers name it on every POST): its answer must come
    from the same one."""
    origin = request.headers.get("Origin")
    return origin if origin and origin != "null" else None


def _label() -> str:
    """The device's label in the account's list of sessions: its browser and system, as its
    User-Agent names them (e.g. "Firefox on Android"); the player tells devices apart by it."""
    agent = request.headers.get("User-Agent", "")
    system = next((n for n in ("Android", "iPhone", "iPad", "Windows", "Macintosh", "CrOS", "Linux") if n in agent), "")
    browser = next((name for key, name in _BROWSERS if key in agent), "")
    return f"{browser} on {system}" if browser and system else system or browser or "browser"


#: (what a User-Agent holds, the browser's name), the first found wins (Edge's and Chrome's name Safari too)
_BROWSERS = (("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"))


def _signed_in(signed: Any, **extra: Any) -> Response:
    response = jsonify({"signed_in": True, **extra})
    lifetime = int(services().accounts.limits.lifetime)  # the browser forgets it when the server would refuse it
    common.set_cookie(response, auth.SESSION_COOKIE, signed.session, max_age=min(lifetime, auth.MAX_AGE))
    return response


def _signed_out(response: Response, held: list[tuple[str, int]]) -> Response:
    """Drop the session cookie, and this browser's cookies of the seats the account holds (signed
    out, the device no longer plays them)."""
    response.delete_cookie(auth.SESSION_COOKIE, path="/")
    for match_id, seat in held:
        response.delete_cookie((auth.owner_cookie if seat == -1 else auth.seat_cookie)(match_id), path="/")
    return response


def _credential() -> Any:
    credential = common.body().get("credential")
    if not isinstance(credential, dict):
        raise ApiError(400, "invalid_body", "send the passkey's answer as credential")
    return credential


# -- the page -------------------------------------------------------------------------------------
@blp.route("/account", methods=["GET"])
def account_page():
    return common.page("account.html", name=reads().account_name(_session()))


# -- ceremonies -----------------------------------------------------------------------------------
@blp.route("/web/account/sign-up/options", methods=["POST"])
@rate_limited(LIMIT)
def sign_up_options():
    common.check_csrf()
    return jsonify(services().accounts.begin_sign_up(str(common.body().get("name", "")), _origin()))


@blp.route("/web/account/sign-up", methods=["POST"])
@rate_limited(LIMIT)
def sign_up():
    common.check_csrf()
    signed = services().accounts.finish_sign_up(_credential(), _label())
    return _signed_in(signed, recovery_codes=list(signed.recovery_codes)), 201


@blp.route("/web/account/sign-in/options", methods=["POST"])
@rate_limited(LIMIT)
def sign_in_options():
    common.check_csrf()
    return jsonify(services().accounts.begin_sign_in(_origin()))


@blp.route("/web/account/sign-in", methods=["POST"])
@rate_limited(LIMIT)
def sign_in():
    common.check_csrf()
    return _signed_in(services().accounts.finish_sign_in(_credential(), _label()))


@blp.route("/web/account/recover/options", methods=["POST"])
@rate_limited(LIMIT)
def recover_options():
    common.check_csrf()
    return jsonify(services().accounts.begin_recovery(str(common.body().get("code", "")), _origin()))


@blp.route("/web/account/recover", methods=["POST"])
@rate_limited(LIMIT)
def recover():
    common.check_csrf()
    return _signed_in(services().accounts.finish_recovery(_credential(), _label()))


@blp.route("/web/account/passkeys/options", methods=["POST"])
def passkey_options():
    common.check_csrf()
    return jsonify(services().accounts.begin_add_passkey(_session(), _origin()))


@blp.route("/web/account/passkeys", methods=["POST"])
def add_passkey():
    common.check_csrf()
    services().accounts.finish_add_passkey(_session(), _credential())
    return jsonify({"added": True}), 201


@blp.route("/web/account/device-link", methods=["POST"])
def device_link():
    """A one-time code for another device to add its own passkey (shown as a link to open there)."""
    common.check_csrf()
    return jsonify({"code": services().accounts.new_device_link(_session())}), 201


@blp.route("/web/account/linked-passkey/options", methods=["POST"])
@rate_limited(LIMIT)
def linked_passkey_options():
    common.check_csrf()
    return jsonify(services().accounts.begin_linked_passkey(str(common.body().get("code", "")), _origin()))


@blp.route("/web/account/linked-passkey", methods=["POST"])
@rate_limited(LIMIT)
def linked_passkey():
    common.check_csrf()
    return _signed_in(services().accounts.finish_linked_passkey(_credential(), _label())), 201


@blp.route("/web/account/recovery-codes", methods=["POST"])
def renew_codes():
    common.check_csrf()
    return jsonify({"recovery_codes": list(services().accounts.renew_recovery_codes(_session()))})


# -- sessions -------------------------------------------------------------------------------------
@blp.route("/web/account/sign-out", methods=["POST"])
def sign_out():
    common.check_csrf()
    held = services().accounts.sign_out(_session())
    return _signed_out(jsonify({"signed_in": False}), held)


@blp.route("/web/account/sign-out-everywhere", methods=["POST"])
def sign_out_everywhere():
    common.check_csrf()
    ended, held = services().accounts.sign_out_everywhere(_session())
    return _signed_out(jsonify({"signed_in": False, "sessions_ended": ended}), held)


@blp.route("/web/account/sessions/<session_id>/sign-out", methods=["POST"])
def sign_out_device(session_id):
    """End one signed-in device's session (by its id in the profile's list), from a signed-in device."""
    common.check_csrf()
    own = services().accounts.sign_out_device(_session(), session_id)
    response = jsonify({"signed_out": True, "this_device": own})
    return _signed_out(response, []) if own else response


# -- seats, data ----------------------------------------------------------------------------------
@blp.route("/web/account/claim", methods=["POST"])
def claim():
    """Claim into the account every seat and owner right this browser's cookies hold (their tokens
    checked by the use case); the claimed cookies are dropped: the seats are the account's now."""
    common.check_csrf()
    cookies = request.cookies
    owned = {
        name[len(auth.OWNER_COOKIE) :]: token
        for name, token in cookies.items()
        if name.startswith(auth.OWNER_COOKIE) and auth.MATCH_ID.match(name[len(auth.OWNER_COOKIE) :]) and token
    }
    claimed = services().accounts.claim(_session(), auth.held_matches(cookies), owned)
    response = jsonify({"claimed": claimed})
    for found in claimed:
        name = (auth.owner_cookie if found["seat"] == -1 else auth.seat_cookie)(found["match_id"])
        response.delete_cookie(name, path="/")
    return response


@blp.route("/web/account", methods=["GET"])
def profile():
    return jsonify(reads().account(_session()))


@blp.route("/web/account/export", methods=["GET"])
def export():
    body = json.dumps(reads().account_export(_session()), ensure_ascii=False, indent=1)
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": 'attachment; filename="tilefold-account.json"', "Cache-Control": "no-store"},
    )


@blp.route("/web/account/delete", methods=["POST"])
def delete():
    common.check_csrf()
    held = services().accounts.delete(_session())
    return _signed_out(jsonify({"deleted": True}), held)


# -- notifications with no tab open (Web Push: service/usecases/push.py) ------------------------------
@blp.route("/push-sw.js", methods=["GET"])
def push_worker():
    """The service worker that shows a push message and opens its match (static JS), at the site's
    root so its scope is every page."""
    response = current_app.send_static_file("push-sw.js")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Type"] = "text/javascript; charset=utf-8"
    return response


@blp.route("/web/account/push", methods=["GET"])
def push_key():
    """The VAPID public key a device subscribes with (`applicationServerKey`)."""
    return jsonify({"public_key": services().push.public_key})


@blp.route("/web/account/push", methods=["POST"])
def push_subscribe():
    """Keep this device's PushSubscription (its toJSON()) with the signed-in account."""
    common.check_csrf()
    services().push.subscribe(_session(), common.body().get("subscription"))
    return jsonify({"subscribed": True}), 201


@blp.route("/web/account/push/remove", methods=["POST"])
def push_unsubscribe():
    """Forget this device's subscription (by its endpoint)."""
    common.check_csrf()
    removed = services().push.unsubscribe(_session(), common.body().get("endpoint"))
    return jsonify({"subscribed": False, "removed": removed})


# -- API tokens for scripts (docs/API.md, "API tokens") -------------------------------------------
@blp.route("/web/account/tokens", methods=["GET"])
def api_tokens():
    return jsonify({"tokens": reads().api_tokens(_session())})


@blp.route("/web/account/tokens", methods=["POST"])
def new_api_token():
    """A new API token of the signed-in account, named; the answer shows it once."""
    common.check_csrf()
    return jsonify(services().accounts.create_api_token(_session(), str(common.body().get("name", "")))), 201


@blp.route("/web/account/tokens/<token_id>/revoke", methods=["POST"])
def revoke_api_token(token_id):
    common.check_csrf()
    services().accounts.revoke_api_token(_session(), token_id)
    return jsonify({"revoked": True})
