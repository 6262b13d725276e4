"""Errors of the runtime API as RFC 9457 problems (`application/problem+json`), wherever
they are raised: in its routes, or before any route is found (`wanted`: a 404 or 405
under `/api/`), so a runtime never has to read an HTML error page."""

from __future__ import annotations

from flask import Response, request
from werkzeug.exceptions import HTTPException
from werkzeug.http import HTTP_STATUS_CODES

from .api_schema import Problem

PROBLEM_TYPE = "application/problem+json"
API_PREFIX = "/api/"


def wanted() -> bool:
    """Whether this request is the API's, so its errors are problems."""
    return request.path.startswith(API_PREFIX)


def problem(code: int, detail: str, headers: dict[str, str] | None = None) -> Response:
    """A problem answer (`api_schema.Problem`), titled with the status's name. A detail
    that quotes what was sent may hold a lone surrogate (a JSON `"\\udfff"`), which UTF-8
    cannot carry: it is written as its escape."""
    detail = detail.encode("utf-8", "backslashreplace").decode("utf-8")
    body = Problem(title=HTTP_STATUS_CODES.get(code, "Error"), status=code, detail=detail)
    response = Response(body.model_dump_json(), code, mimetype=PROBLEM_TYPE)
    response.headers.update(headers or {})
    return response


def of_http_error(error: HTTPException) -> Response:
    """Werkzeug's error as a problem; a 500 says nothing of its cause (the log has it)."""
    code = error.code or 500
    detail = "the server failed; try again" if code >= 500 else (error.description or "")
    allow = dict(error.get_headers()).get("Allow")  # a 405 names the methods to use
    return problem(code, detail, {"Allow": allow} if allow else None)
