"""URLs of API v1. Django tries the patterns in order, and the games' come first: the action POST
and the game view are most of the traffic, and every pattern tried before the one that matches
costs a match attempt (issue 14). No two apps' patterns overlap, so the order changes no route."""
from django.urls import include, path

from okgin_project.views import ApiIndexApi

urlpatterns = [
    path("", include("games.urls")),
    path("", ApiIndexApi.as_view(), name="api-index"),
    path("", include("players.urls")),
    path("", include("notifications.urls")),
]
