"""``manage.py verify_games``: replay every stored game through the engine and report mismatches.

The source of truth is each round's deck order plus the move log; the ``Game.state`` snapshot must
equal the replay. Exit status 1 when any game mismatches (or fails to replay).
"""
from django.core.management.base import BaseCommand, CommandError

from games import engine
from games.models import Game, Move, Round


def game_verify(game: Game) -> str | None:
    """Replay ``game``; return None if its snapshot, scores and round count match, else a message."""
    if game.state is None:
        return None
    decks = list(Round.objects.filter(game=game).order_by("number").values_list("deck", flat=True))
    moves = [
        (seat, action)
        for seat, action in Move.objects.filter(game=game).order_by("seq").values_list("seat", "action")
    ]
    try:
        state = engine.replay(engine.RuleSet.from_dict(game.rules), game.first_dealer, decks, moves)
    except (engine.EngineError, StopIteration, ValueError) as exc:
        return f"replay failed: {exc}"
    problems = []
    if state.to_dict() != game.state:
        problems.append("snapshot differs from replay")
    if list(state.scores) != [game.score0, game.score1]:
        problems.append(f"scores {game.score0}-{game.score1} but replay gives {state.scores[0]}-{state.scores[1]}")
    if state.round_number != game.round_number:
        problems.append(f"round {game.round_number} but replay reaches {state.round_number}")
    if len(moves) != game.move_count:
        problems.append(f"move_count {game.move_count} but {len(moves)} moves stored")
    return "; ".join(problems) or None


class Command(BaseCommand):
    help = "Replay every stored game from its decks and move log and report any mismatch."

    def add_arguments(self, parser):
        parser.add_argument("game_ids", nargs="*", type=int, help="Only these games.")

    def handle(self, *args, game_ids, **options):
        games = Game.objects.exclude(state=None).order_by("pk")
        if game_ids:
            games = games.filter(pk__in=game_ids)
        checked = bad = 0
        for game in games.iterator():
            checked += 1
            problem = game_verify(game)
            if problem:
                bad += 1
                self.stdout.write(f"game {game.pk}: MISMATCH {problem}")
        self.stdout.write(f"verified {checked} game(s), {bad} mismatch(es)")
        if bad:
            raise CommandError(f"{bad} game(s) do not match their move log")
