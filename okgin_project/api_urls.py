"""URLs of API v1."""
from django.urls import include, path

from okgin_project.views import ApiIndexApi

urlpatterns = [
    path("", ApiIndexApi.as_view(), name="api-index"),
    path("", include("players.urls")),
    path("", include("games.urls")),
    path("", include("notifications.urls")),
]
