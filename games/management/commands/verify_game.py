"""``manage.py verify_game <id>``: check a game's provably fair decks (``games.fairness``).

For every round no longer in play: the commitment published at the deal equals SHA-256 of the
revealed deck and salt, and the recorded moves replay from that deck to the recorded result. One
line per round; exit status 1 when any round fails (``CommandError``).
"""
from django.core.management.base import BaseCommand, CommandError

from games.fairness import rounds_verify
from games.models import Game


class Command(BaseCommand):
    help = "Check each finished round of a game: deck commitment and replay to the recorded result."

    def add_arguments(self, parser):
        parser.add_argument("game_id", type=int)

    def handle(self, *args, game_id, **options):
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise CommandError(f"no game {game_id}")
        report = rounds_verify(game=game)
        for rnd in report["rounds"]:
            status = "ok" if not rnd["problems"] else "FAILED " + "; ".join(rnd["problems"])
            preset = " (staff preset deck)" if rnd["preset_deck"] else ""
            self.stdout.write(f"round {rnd['number']}{preset}: commitment {rnd['commitment']}: {status}")
        self.stdout.write(f"game {game_id}: {report['rounds_checked']} round(s) checked, "
                          f"{'verified' if report['verified'] else 'NOT verified'}")
        if not report["verified"]:
            raise CommandError(f"game {game_id} failed verification")
