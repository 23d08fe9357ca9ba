"""manage.py verify_games replays stored games and reports mismatches."""
import pytest
from django.core.management import CommandError, call_command

from games import services
from games.models import Game
from tests.games.factories import game_make


@pytest.mark.django_db
def test_verify_games_passes_on_played_games_and_reports_a_tampered_snapshot(capsys):
    game = game_make()
    for seat, action in [(0, {"type": "pass"}), (1, {"type": "pass"}), (0, {"type": "draw_stock"}),
                         (0, {"type": "knock", "card": "5H"})]:  # ends round 1, deals round 2
        player = game.player0 if seat == 0 else game.player1
        v = Game.objects.get(pk=game.pk).version
        services.action_submit(game_id=game.pk, player=player, expected_version=v, action=action)
    assert Game.objects.get(pk=game.pk).round_number == 2
    call_command("verify_games")
    assert "verified 1 game(s), 0 mismatch(es)" in capsys.readouterr().out

    g = Game.objects.get(pk=game.pk)
    g.state["scores"] = [99, 0]
    g.score0 = 99
    g.save()
    with pytest.raises(CommandError):
        call_command("verify_games")
    out = capsys.readouterr().out
    assert f"game {game.pk}: MISMATCH" in out and "scores 99-0" in out
