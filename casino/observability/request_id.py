"""A request id on every request, log line, action-log row and Celery task it causes.

The id comes from ``X-Request-ID`` (a proxy's) or is made here, is echoed in the
response, and travels to Celery as a task header so a worker's logs carry it too.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse

from casino.client_address import client_address
from casino.observability.context import RequestInfo, current_request

HEADER = "X-Request-ID"
_SAFE = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


def new_request_id() -> str:
    return uuid.uuid4().hex


def current_request_id() -> str:
    return current_request.get().request_id


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get(HEADER, "")
        request_id = incoming if _SAFE.match(incoming) else new_request_id()
        token = current_request.set(
            RequestInfo(request_id=request_id, remote_addr=client_address(request) or None)
        )
        try:
            response = self.get_response(request)
        finally:
            current_request.reset(token)
        response[HEADER] = request_id
        return response


class RequestIdLogFilter(logging.Filter):
    """Stamps every log record with the current request (or task) id."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id()
        return True


def attach_to_task_headers(headers: dict[str, Any]) -> None:
    request_id = current_request_id()
    if request_id:
        headers["request_id"] = request_id
