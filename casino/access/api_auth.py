"""The API token endpoint, ``/api/auth/token/``: issue (with a lifetime) and revoke.

Apart from ``casino.http.api``, which DRF's settings import while ``rest_framework.views``
loads: a view module cannot be imported from there.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from casino.access.security import TokenAuthentication, token_expires_at
from casino.http.validation import known_fields, no_fields

TokenOutput = inline_serializer("Token", {"token": serializers.CharField(), "expires_at": serializers.DateTimeField()})


class TokenApi(ObtainAuthToken):
    """``POST``: a token for a user name and password (a new one once the old expired),
    with its ``expires_at``. ``DELETE``: revoke the caller's token (signing out a client)."""

    def get_authenticators(self):
        if self.request is not None and self.request.method == "DELETE":
            return [TokenAuthentication(), SessionAuthentication()]
        return super().get_authenticators()

    def get_permissions(self):
        if self.request is not None and self.request.method == "DELETE":
            return [IsAuthenticated()]
        return super().get_permissions()

    @extend_schema(
        request=AuthTokenSerializer,
        responses={200: TokenOutput},
        auth=[],
        summary="A token for your user name and password",
    )
    def post(self, request, *args, **kwargs):
        known_fields(request.data, ("username", "password"))
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = serializer.validated_data["user"]
        with transaction.atomic():
            token, _ = Token.objects.select_for_update().get_or_create(user=user)
            if token_expires_at(token) <= timezone.now():
                token.delete()
                token = Token.objects.create(user=user)
        return Response({"token": token.key, "expires_at": token_expires_at(token)})

    @extend_schema(request=None, responses={204: OpenApiResponse(description="Revoked")}, summary="Revoke your token")
    def delete(self, request, *args, **kwargs):
        no_fields(request.data)
        Token.objects.filter(user=request.user).delete()
        return Response(status=204)
