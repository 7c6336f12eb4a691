"""The OpenAPI schema (``/api/schema/``) generates without a warning or an error and is a
valid OpenAPI document: ``manage.py spectacular --validate --fail-on-warn``.

A warning means drf-spectacular had to guess (a view without a serializer, a field whose
type it could not read, two components of one name): the published schema would then
say something other than what the API does.

This module is also the URL conf of the check's own test: one view the generator cannot
describe.
"""

from __future__ import annotations

from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import path
from drf_spectacular.drainage import GENERATOR_STATS
from rest_framework.response import Response
from rest_framework.views import APIView


class _Undescribed(APIView):
    """No serializer and no ``extend_schema``: the generator can only guess."""

    def get(self, request):
        return Response({})


urlpatterns = [path("api/undescribed/", _Undescribed.as_view())]


def _spectacular(tmp_path, capsys, **options) -> str | None:
    """Run the command; None when it succeeds, else its error and what it printed."""
    GENERATOR_STATS.reset()  # warnings of an earlier generation in this process are not this one's
    try:
        call_command("spectacular", validate=True, fail_on_warn=True, file=str(tmp_path / "schema.yaml"), **options)
    except CommandError as exc:
        return f"{exc}\n{capsys.readouterr().err}"
    finally:
        GENERATOR_STATS.reset()
    return None


def test_the_openapi_schema_generates_without_warnings_and_validates(tmp_path, capsys):
    problem = _spectacular(tmp_path, capsys)
    assert problem is None, f"manage.py spectacular --validate --fail-on-warn:\n{problem}"
    assert (tmp_path / "schema.yaml").read_text().startswith("openapi: 3.1")


def test_the_check_fails_on_a_view_the_generator_cannot_describe(tmp_path, capsys):
    problem = _spectacular(tmp_path, capsys, urlconf=__name__)
    assert problem is not None and "warnings" in problem
    assert "_Undescribed" in problem  # the message names the view
