"""Root URLs: the API under /api/v1/, the OpenAPI schema, offline Swagger UI and ReDoc, the admin.

``/healthz`` and ``/readyz`` are answered by ``okgin_project.health.HealthMiddleware``."""
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from okgin_project.errors import json_404

urlpatterns = [
    path("api/v1/", include("okgin_project.api_urls")),  # first: nearly every request (issue 14)
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(permission_classes=[]), name="schema"),
    path(
        "api/docs/",
        SpectacularSwaggerView.as_view(url_name="schema", permission_classes=[]),
        name="swagger-ui",
    ),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="schema", permission_classes=[], template_name="okgin/redoc.html"),
        name="redoc",
    ),
    # Any other URL under /api/ answers the JSON error shape, also with DEBUG on (where Django
    # would otherwise show its HTML debug page instead of calling handler404).
    re_path(r"^api/", json_404, name="api-not-found"),
]

handler404 = "okgin_project.errors.json_404"
handler500 = "okgin_project.errors.json_500"
