"""The OpenAPI schema's view: always English, whatever the request's language."""

from django.utils import translation
from drf_spectacular.views import SpectacularAPIView


class SchemaApi(SpectacularAPIView):
    """drf-spectacular's schema, generated and rendered under English: its help texts and
    messages are lazy translations, so the response is rendered inside the override."""

    def dispatch(self, request, *args, **kwargs):
        with translation.override("en"):
            response = super().dispatch(request, *args, **kwargs)
            if hasattr(response, "render"):
                response.render()
        return response
