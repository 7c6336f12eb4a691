"""The auditors' HTTP answers of exports (their pages and their API alike): a stream of
chunks, an export's finished file with its length and digest, its manifest."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse, StreamingHttpResponse

from backoffice.exports import MEDIA_TYPES, export_file_path, export_manifest_bytes, file_chunks
from backoffice.models import ExportJob


async def _async_chunks(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    """A sync iterator served under ASGI one chunk at a time (Django would read a sync
    iterator to the end into memory first). Thread-sensitive: every step runs on the
    request's thread, so the database cursor stays on its connection."""
    step = sync_to_async(next, thread_sensitive=True)
    done = object()
    try:
        while (chunk := await step(chunks, done)) is not done:
            yield chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            await sync_to_async(close, thread_sensitive=True)()


def streaming_response(
    request, chunks: Iterator[bytes], *, content_type: str, filename: str | None = None
) -> StreamingHttpResponse:
    """Stream ``chunks``: as they are under WSGI, one awaited chunk at a time under ASGI."""
    raw = getattr(request, "_request", request)
    content = _async_chunks(chunks) if isinstance(raw, ASGIRequest) else chunks
    response = StreamingHttpResponse(content, content_type=content_type)
    if filename:
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def file_download_response(request, job: ExportJob):
    """The finished file of an export, streamed, with its length and its SHA-256 digest."""
    path = export_file_path(job=job)
    response = streaming_response(
        request, file_chunks(path), content_type=MEDIA_TYPES[job.format], filename=job.file_name
    )
    response["Content-Length"] = str(path.stat().st_size)
    response["Repr-Digest"] = f"sha-256=:{base64.b64encode(bytes.fromhex(job.sha256)).decode()}:"
    return response


def manifest_response(job: ExportJob) -> HttpResponse:
    response = HttpResponse(export_manifest_bytes(job=job), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{job.file_name}.manifest.json"'
    response["Cache-Control"] = "no-store"
    return response
