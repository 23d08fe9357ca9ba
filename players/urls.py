from django.urls import path
from . import views

urlpatterns = [
    path("auth/register/", views.RegisterApi.as_view(), name="register"),
    path("auth/token/", views.TokenObtainApi.as_view(), name="token-obtain"),
    path("auth/token/refresh/", views.TokenRefreshApi.as_view(), name="token-refresh"),
    path("auth/logout/", views.LogoutApi.as_view(), name="logout"),
    path("me/", views.MeApi.as_view(), name="me"),
    path("me/delete/", views.AccountDeleteApi.as_view(), name="account-delete"),
    path("me/password/", views.PasswordChangeApi.as_view(), name="password-change"),
    path("me/stats/", views.MyStatsApi.as_view(), name="my-stats"),
    path("me/vacation/", views.VacationApi.as_view(), name="vacation"),
    path("me/vacation/start/", views.VacationStartApi.as_view(), name="vacation-start"),
    path("me/vacation/end/", views.VacationEndApi.as_view(), name="vacation-end"),
    path("players/<str:name>/games.ndjson", views.PlayerGamesNdjsonApi.as_view(), name="player-games-ndjson"),
    path("players/<str:name>/stats/", views.PlayerStatsApi.as_view(), name="player-stats"),
]
