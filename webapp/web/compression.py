"""Compressed answers: HTML and JSON go out brotli- or gzip-encoded when the client accepts
it (Flask-Compress, one instance per app), and an answer whose ETag names its content, not
its bytes, keeps that ETag whatever the encoding (`keeping_etag`).
"""

from __future__ import annotations

from flask import Flask, Response, current_app
from flask_compress import Compress

EXTENSION = "compress"


def init_app(app: Flask) -> None:
    """Compress `app`'s answers (brotli, else gzip) when the client accepts it: a level
    that costs a few milliseconds on a large preview, sent on every keystroke."""
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    app.config.setdefault("COMPRESS_BR_LEVEL", 4)
    app.config.setdefault("COMPRESS_LEVEL", 6)
    app.extensions[EXTENSION] = Compress(app)


def keeping_etag(response: Response, etag: str) -> Response:
    """`response` compressed now as the client accepts, with the strong ETag `"etag"`
    whatever the encoding. Flask-Compress would make it `"etag:gzip"`; the runtime API's
    ETag is the snapshot's digest, the sha256 of the body once decoded, which a client
    checks and sends back. (Once encoded here, the app's own pass leaves it alone.)"""
    response = current_app.extensions[EXTENSION].after_request(response)
    response.set_etag(etag)
    return response
