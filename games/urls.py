from django.urls import path

from . import views

# The action POST and the game view first: most requests are theirs, and Django tries the
# patterns in order (issue 14). No two patterns match the same path.
urlpatterns = [
    path("games/<int:game_id>/", views.GameDetailApi.as_view(), name="game-detail"),
    path("games/<int:game_id>/actions/", views.ActionSubmitApi.as_view(), name="game-action"),
    path("games/", views.MyGamesListApi.as_view(), name="game-list"),
    path("games/new/", views.GameCreateApi.as_view(), name="game-create"),
    path("games/lobby/", views.LobbyListApi.as_view(), name="game-lobby"),
    path("games/<int:game_id>/accept/", views.InvitationAcceptApi.as_view(), name="game-accept"),
    path("games/<int:game_id>/decline/", views.InvitationDeclineApi.as_view(), name="game-decline"),
    path("games/<int:game_id>/abort/", views.InvitationAbortApi.as_view(), name="game-abort"),
    path("games/<int:game_id>/resign/", views.GameResignApi.as_view(), name="game-resign"),
    path("games/<int:game_id>/rounds/", views.GameRoundsApi.as_view(), name="game-rounds"),
    path("games/<int:game_id>/moves/", views.GameMovesApi.as_view(), name="game-moves"),
    path("games/<int:game_id>/export/", views.GameExportApi.as_view(), name="game-export"),
    path("games/<int:game_id>/rematch/", views.RematchOfferApi.as_view(), name="game-rematch"),
    path("games/<int:game_id>/rematch/accept/", views.RematchAcceptApi.as_view(), name="game-rematch-accept"),
    path("games/<int:game_id>/rematch/decline/", views.RematchDeclineApi.as_view(), name="game-rematch-decline"),
    path("leaderboard/<str:variant>/", views.LeaderboardApi.as_view(), name="leaderboard"),
    path("games/<int:game_id>/verify/", views.GameVerifyApi.as_view(), name="game-verify"),
    path("games/<int:game_id>/review/", views.GameReviewApi.as_view(), name="game-review"),
]
