from django.urls import path
from . import views

urlpatterns = [
    path("auth/register/", views.RegisterApi.as_view(), name="register"),
    path("auth/token/", views.TokenObtainApi.as_view(), name="token-obtain"),
    path("auth/token/refresh/", views.TokenRefreshApi.as_view(), name="token-refresh"),
    path("me/", views.MeApi.as_view(), name="me"),
    path("me/stats/", views.MyStatsApi.as_view(), name="my-stats"),
    path("players/<str:name>/stats/", views.PlayerStatsApi.as_view(), name="player-stats"),
]
