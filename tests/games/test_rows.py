"""games/rows.py: the game row with its players and current round's id, read by hand-written SQL,
equals what the ORM's ``select_related`` read gives, field for field; the lock form refuses to run
outside a transaction and locks the game's row only."""
import psycopg
import pytest
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError

from games import services
from games.models import Game, Round
from games.rows import game_with_players
from players.models import Player
from tests.games.factories import game_make, player_make


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


@pytest.mark.django_db
def test_game_with_players_equals_the_orm_read():
    game = game_make()
    last = Round.objects.filter(game=game).order_by("-number").first()
    read = game_with_players(game_id=game.pk)
    orm = Game.objects.select_related("player0", "player1").get(pk=game.pk)
    assert _fields(read) == _fields(orm)  # every column, converted alike (JSON, times, booleans)
    assert isinstance(read.state, dict) and read.turn_started_at.tzinfo is not None
    assert read.current_round_id == last.pk
    for seat in (0, 1):
        assert _fields(read.player_at(seat)) == _fields(orm.player_at(seat))
    with connection.execute_wrapper(_no_queries):  # the players came with the row: no query for them
        assert (read.player0.name, read.player1.name) == (orm.player0.name, orm.player1.name)


def _no_queries(execute, sql, params, many, context):
    raise AssertionError(f"query: {sql}")


@pytest.mark.django_db
def test_an_open_challenge_has_no_second_player_and_no_round():
    creator = player_make()
    game = services.game_create(creator=creator, kind="open")
    read = game_with_players(game_id=game.pk)
    assert read.player1 is None and read.player1_id is None and read.current_round_id is None
    assert read.player0 == creator and _fields(read) == _fields(Game.objects.get(pk=game.pk))
    assert game_with_players(game_id=game.pk + 1000) is None
    assert game_with_players(game_id=2**63) is None  # too large for the column: no row, as the ORM answers


@pytest.mark.django_db(transaction=True)
def test_the_lock_holds_the_game_row_only():
    game = game_make()
    with pytest.raises(TransactionManagementError):
        game_with_players(game_id=game.pk, lock=True)
    if connection.vendor != "postgresql":
        return
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    with transaction.atomic():
        assert game_with_players(game_id=game.pk, lock=True).pk == game.pk
        with psycopg.connect(url, autocommit=True) as other:
            other.execute("SET lock_timeout = '200ms'")
            other.execute("SELECT 1 FROM players_player WHERE id = %s FOR UPDATE", [game.player0_id])
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute("SELECT 1 FROM games_game WHERE id = %s FOR UPDATE", [game.pk])
    assert Player.objects.filter(pk=game.player0_id).exists()


@pytest.mark.django_db
def test_the_idempotency_lookup_equals_the_orm_read():
    """games.idempotency._record_read, by SQL written once: the same record as the ORM's filter
    (player or game None matching records without one), the first by id, None when there is none
    (also for a game id too large for the column)."""
    from games.idempotency import _record_read
    from games.models import IdempotencyRecord

    game, other = game_make(), player_make()
    made = [IdempotencyRecord.objects.create(player=p, operation=op, game=g, key="k", request_hash="h",
                                             response_status=200, response_body={"n": i},
                                             move_seq=1 if op == "action" else None)
            for i, (p, op, g) in enumerate([(game.player0, "action", game), (game.player0, "resign", game),
                                            (None, "register", None), (other, "game_create", None)])]
    for record in made:
        read = _record_read(player_id=record.player_id, operation=record.operation, game_id=record.game_id, key="k")
        orm = IdempotencyRecord.objects.filter(player_id=record.player_id, operation=record.operation,
                                               game_id=record.game_id, key="k").first()
        assert read.pk == record.pk and _fields(read) == _fields(orm)
        assert read.response_body == record.response_body and read.created_at.tzinfo is not None
    assert _record_read(player_id=game.player0_id, operation="action", game_id=game.pk, key="other") is None
    assert _record_read(player_id=other.pk, operation="action", game_id=game.pk, key="k") is None
    assert _record_read(player_id=game.player0_id, operation="action", game_id=None, key="k") is None
    assert _record_read(player_id=game.player0_id, operation="action", game_id=2**63, key="k") is None


@pytest.mark.django_db
def test_row_insert_writes_what_the_orm_writes():
    """okgin_project.rows.row_insert: the same row as ``save()``, field for field (JSON, the
    auto_now_add time, booleans, the foreign keys), with a new id; a second row with the same
    (game, seq) is refused by the database as ``create`` is."""
    from django.db import IntegrityError
    from django.utils import timezone

    from games.models import Move
    from okgin_project.rows import row_insert

    game = game_make()
    round_id = Round.objects.get(game=game, number=game.round_number).pk
    values = {"game_id": game.pk, "round_id": round_id, "seat": 1, "action": {"type": "discard", "card": "QC"},
              "events": [{"type": "discarded", "seat": 1, "card": "QC", "n": [1, None, True]}],
              "auto_played": True}
    before = timezone.now()
    row_insert(Move(seq=900, **values))
    Move.objects.create(seq=901, **values)
    written, saved = Move.objects.get(game=game, seq=900), Move.objects.get(game=game, seq=901)
    assert written.pk is not None and written.pk != saved.pk
    for name in ("game_id", "round_id", "seat", "action", "events", "auto_played"):
        assert getattr(written, name) == getattr(saved, name) == values[name]
    assert before <= written.created_at <= saved.created_at  # auto_now_add, set as save() sets it
    with pytest.raises(IntegrityError), transaction.atomic():
        row_insert(Move(seq=900, **values))
    assert Move.objects.filter(game=game, seq=900).count() == 1


@pytest.mark.django_db
def test_row_update_writes_the_named_fields_only():
    """okgin_project.rows.row_update: the named columns as ``save(update_fields=...)`` writes them
    (an auto_now time moves on), the others untouched even when changed on the instance; a row
    that does not exist raises DatabaseError, as save(update_fields=...) does."""
    from django.db import DatabaseError

    from okgin_project.rows import row_update

    game = game_make()
    stored = Game.objects.get(pk=game.pk)
    game.version, game.score0, game.state = game.version + 7, 33, {"marker": [1, 2]}
    game.variant = "classic"  # not named: not written
    row_update(game, ("version", "score0", "state", "updated_at"))
    read = Game.objects.get(pk=game.pk)
    assert (read.version, read.score0, read.state) == (stored.version + 7, 33, {"marker": [1, 2]})
    assert read.variant == stored.variant != "classic"
    assert read.updated_at > stored.updated_at and read.updated_at == game.updated_at
    assert (read.score1, read.move_count, read.rules) == (stored.score1, stored.move_count, stored.rules)
    gone = Game(pk=game.pk + 1000, version=1)
    with pytest.raises(DatabaseError):
        row_update(gone, ("version",))


@pytest.mark.django_db
def test_rows_insert_returns_each_new_id_in_order():
    """okgin_project.rows.rows_insert of several rows with ``returning_pk``: one statement, and
    each object gets the id of its own row (read back by id: the same player, kind and data)."""
    from django.test.utils import CaptureQueriesContext

    from notifications.models import Event
    from okgin_project.rows import rows_insert

    game = game_make()
    events = [Event(player=game.player0 if i % 2 else game.player1, kind=kind, game_id=game.pk, data={"i": i})
              for i, kind in enumerate(["your_turn", "opponent_moved", "round_over"])]
    with CaptureQueriesContext(connection) as queries:
        rows_insert(events, returning_pk=True)
    assert len([q for q in queries.captured_queries if q["sql"].startswith("INSERT")]) == 1
    assert len({e.pk for e in events}) == 3 and all(e.pk is not None and not e._state.adding for e in events)
    for i, e in enumerate(events):
        read = Event.objects.get(pk=e.pk)
        assert (read.player_id, read.kind, read.data, read.game_id) == (e.player_id, e.kind, {"i": i}, game.pk)
        assert read.created_at == e.created_at


@pytest.mark.django_db(transaction=True)
def test_a_refused_row_write_marks_the_transaction_for_rollback_as_the_orm_does():
    """A caught IntegrityError of row_insert (or a failed row_update) inside ``atomic`` leaves the
    block marked for rollback, as Move.objects.create does: nothing of it can be committed."""
    from django.db import IntegrityError

    from games.models import Move
    from okgin_project.rows import row_insert

    game = game_make()
    round_id = Round.objects.get(game=game, number=game.round_number).pk
    values = {"game_id": game.pk, "round_id": round_id, "seat": 0, "action": {}, "events": []}
    Move.objects.create(seq=700, **values)
    marked = {}
    for writer in ("orm", "rows"):
        with pytest.raises(transaction.TransactionManagementError), transaction.atomic():
            try:
                if writer == "orm":
                    Move.objects.create(seq=700, **values)
                else:
                    row_insert(Move(seq=700, **values))
            except IntegrityError:
                pass
            marked[writer] = connection.needs_rollback
            Move.objects.create(seq=701, **values)  # refused: the block must roll back
    assert marked == {"orm": True, "rows": True}
    assert not Move.objects.filter(game=game, seq=701).exists()
