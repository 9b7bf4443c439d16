"""RFC 9457 problem+json errors with stable codes, and the handlers that produce them."""

from __future__ import annotations

import http
import json
import logging
from typing import Any, Optional

from flask import Flask, Response
from werkzeug.exceptions import HTTPException

from events import IdempotencyMismatch, StorageUnavailable

from ..model import errors
from .schemas import flatten_errors

PROBLEM_TYPE = "application/problem+json"
log = logging.getLogger(__name__)

#: HTTP status -> stable code for errors raised by Flask/werkzeug/webargs themselves.
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_body",
    428: "precondition_required",
    429: "too_many_requests",
    500: "internal_error",
    503: "storage_unavailable",
}


#: the one table from the service's refusals (service/model/errors.py) to problem+json statuses
STATUS: dict[type[errors.ServiceError], int] = {
    errors.Invalid: 400,
    errors.Unauthenticated: 401,
    errors.Forbidden: 403,
    errors.NotFound: 404,
    errors.Conflict: 409,
    errors.Rejected: 422,
    errors.TooMany: 429,
    errors.Busy: 503,
    errors.IntegrityFailure: 503,
}
BEARER = {"WWW-Authenticate": 'Bearer realm="tilefold"'}


class ApiError(errors.ServiceError):
    """An HTTP-only refusal (of a request's form: a header, a body), with its status and headers."""

    def __init__(self, status: int, code: str, detail: str, headers: Optional[dict] = None, **extra: Any):
        super().__init__(code, detail, **extra)
        self.status, self.headers = status, headers or {}


def status_of(error: errors.ServiceError) -> int:
    """The HTTP status of a refusal: its kind's row in STATUS (the nearest base class that has one)."""
    if isinstance(error, ApiError):
        return error.status
    for kind in type(error).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    return 500


def problem(status: int, code: str, detail: str, headers: Optional[dict] = None, **extra: Any) -> Response:
    """A problem+json response (its code noted for the request's metrics and access log)."""
    from .observe import note_problem

    note_problem(code)
    body = {
        "type": f"https://tilefold.example/problems/{code}",
        "title": _title(status),
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }
    resp = Response(json.dumps(body, ensure_ascii=False), status=status, mimetype=PROBLEM_TYPE)
    for name, value in (headers or {}).items():
        resp.headers[name] = value
    return resp


def _title(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def handle_service_error(error: errors.ServiceError) -> Response:
    """A refusal as problem+json, its status from STATUS; headers from what the refusal says."""
    status = status_of(error)
    headers = dict(error.headers) if isinstance(error, ApiError) else {}
    if error.retry_after is not None:
        headers["Retry-After"] = str(error.retry_after)
    if isinstance(error, errors.Unauthenticated):
        headers.update(BEARER)
    if isinstance(error, errors.VersionConflict):
        headers["ETag"] = f'"v{error.current}"'
    return problem(status, error.code, error.detail, headers, **error.extra)


def handle_http_exception(error: HTTPException) -> Response:
    """Flask's own errors (404, 405, 413, 500) and webargs' body errors as problem+json."""
    status = error.code or 500
    if status >= 500:
        original = getattr(error, "original_exception", None)
        if original is not None:
            log.error("unhandled error", exc_info=original)
        return problem(status, HTTP_CODES.get(status, "internal_error"), "internal server error")
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    if messages is not None:
        return _body_problem(status, messages)
    detail = error.description or _title(status)
    if status == 413:
        detail = "request body too large"
    allowed = getattr(error, "valid_methods", None)  # 405 must list the methods (RFC 9110)
    headers = {"Allow": ", ".join(allowed)} if allowed else None
    return problem(status, HTTP_CODES.get(status, f"http_{status}"), detail, headers)


def _body_problem(status: int, messages: Any) -> Response:
    """webargs validation failures: bad JSON or fields that do not fit the schema."""
    errors = messages.get("json", messages) if isinstance(messages, dict) else messages
    if errors == ["Invalid JSON body."]:
        return problem(400, "invalid_json", "the request body is not valid JSON")
    return problem(
        400, "invalid_body", f"the request body does not fit the schema: {flatten_errors(errors)}", errors=errors
    )


def handle_too_deep(error: RecursionError) -> Response:
    """json.loads recursing on a deeply nested body ([[[[...]]]]): the body is refused, not a 500."""
    log.warning("request refused: %s", error)
    return problem(400, "invalid_json", "the request body is nested too deeply")


def handle_storage(error: StorageUnavailable) -> Response:
    log.warning("storage unavailable: %s", error)
    return problem(503, "storage_unavailable", "event storage is unavailable, retry later", {"Retry-After": "1"})


def handle_idempotency(error: IdempotencyMismatch) -> Response:
    return problem(422, "idempotency_key_reused", "this Idempotency-Key was already used for a different request")


def handle_illegal(error: Exception) -> Response:
    """engine.IllegalAction: 422 with the engine's reason code and the rule (rule id (docs/RULES.md), or null)."""
    return problem(
        422, "illegal_action", str(error), reason=getattr(error, "code", None), rule=getattr(error, "rule", None)
    )


def register(app: Flask) -> None:
    """Install every error handler on the app."""
    from engine import IllegalAction

    app.register_error_handler(IllegalAction, handle_illegal)
    app.register_error_handler(errors.ServiceError, handle_service_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(RecursionError, handle_too_deep)
    app.register_error_handler(StorageUnavailable, handle_storage)
    app.register_error_handler(IdempotencyMismatch, handle_idempotency)
