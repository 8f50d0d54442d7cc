"""`Planned` and `Prepared` build a query's rows by a plan kept from its first rows: they must
be the rows peewee builds (joined rows and selected expressions included) on every backend."""

from __future__ import annotations

from pbem.core.accounts.models import Player
from pbem.core.db.connection import database
from pbem.core.db.prepared import Planned
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match, Seat
from tests.conftest import START

ANN, BEN, CAL = "ann@example.org", "ben@example.org", "cal@example.org"


def _seats(match_ids: list[int]):
    return (Seat.select(Seat, Player).join(Player)
            .where(Seat.match.in_(match_ids)).order_by(Seat.match, Seat.seat))


def _described(seats: list[Seat]) -> list[tuple[dict, dict]]:
    return [(seat.__data__, seat.player.__data__) for seat in seats]


def test_planned_rows_are_peewees_rows(settings) -> None:
    ids = [create_match("nim", players, {}, settings.secret_key, START, seed=n).match.id
           for n, players in enumerate([[ANN, BEN], [BEN, CAL], [CAL, ANN]])]
    seats, matches = Planned(), Planned()
    for chosen in (ids[:1], ids, ids[1:]):  # the first call plans, the others follow it
        assert _described(seats.rows(_seats(chosen))) == _described(list(_seats(chosen)))
        query = Match.select().where(Match.id.in_(chosen))
        assert [m.__data__ for m in matches.rows(query)] == [m.__data__ for m in query]
    assert seats._plans[id(database.obj)] is not None, "the join was planned"
    built = seats.rows(_seats(ids))[0]
    assert built.player.email == ANN and not built.is_dirty()


def test_prepared_tuples_are_peewees_tuples(settings) -> None:
    """A `.tuples()` SELECT is planned too: every column through its field's converter (a
    JSON column decoded, an EXISTS left as the driver gives it), as peewee's own rows."""
    from peewee import fn

    from pbem.core.db.prepared import Prepared

    ids = [create_match("nim", players, {}, settings.secret_key, START, seed=n).match.id
           for n, players in enumerate([[ANN, BEN], [BEN, CAL]])]

    def query(match_id: int):
        return (Match.select(Match.id, Match.to_move, Match.state, Match.created_at,
                             fn.EXISTS(Seat.select(Seat.id).where(Seat.match == Match.id)))
                .where(Match.id == match_id).tuples())

    prepared = Prepared(query)
    for match_id in ids + ids:  # the first call plans, the others follow it
        assert prepared.rows(match_id) == list(query(match_id))
    assert prepared._plans[id(database.obj)] is not None, "the tuples were planned"
    row = prepared.first(ids[0])
    assert isinstance(row, tuple) and isinstance(row[1], list) and isinstance(row[2], dict)


def test_model_rows_with_a_selected_expression_are_peewees_rows(settings) -> None:
    """An expression selected beside a model's fields (`EXISTS (…) AS name`, the door's
    pending answers) comes back as peewee sets it, converter included, on a plain or a
    joined shape; one named like a field of the model is left to peewee."""
    from peewee import fn

    from pbem.core.db.prepared import Prepared

    ids = [create_match("nim", players, {}, settings.secret_key, START, seed=n).match.id
           for n, players in enumerate([[ANN, BEN], [BEN, CAL]])]

    def plain(match_id: int):
        return (Match.select(Match, fn.MAX(Match.created_at).alias("latest"),
                             fn.EXISTS(Seat.select(Seat.id).where(Seat.match == Match.id))
                             .alias("seated"))
                .where(Match.id == match_id).group_by(Match.id))

    def joined(match_id: int):
        return (Seat.select(Seat, Player, fn.UPPER(Player.email).alias("shout"))
                .join(Player).where(Seat.match == match_id).order_by(Seat.seat))

    def clashing(match_id: int):
        return Match.select(Match.id, fn.UPPER(Match.game).alias("game")).where(
            Match.id == match_id)

    def seen(rows: list) -> list:
        return [(row.__data__, {name: value for name, value in vars(row).items()
                                if not name.startswith("_")}) for row in rows]

    for build in (plain, joined, clashing):
        prepared = Prepared(build)
        for match_id in ids + ids:  # the first call plans, the others follow it
            assert seen(prepared.rows(match_id)) == seen(list(build(match_id))), build
    first = Prepared(plain)
    first.rows(ids[0])
    assert first._plans[id(database.obj)] is not None, "the expression was planned"
    row = first.rows(ids[0])[0]
    assert row.latest == START and row.seated
    assert Prepared(joined).rows(ids[0])[0].shout == ANN.upper()
    clash = Prepared(clashing)
    clash.rows(ids[0])
    assert clash._plans[id(database.obj)] is None, "a clashing name is left to peewee"
    assert clash.rows(ids[1])[0].game == "NIM"


def test_a_row_plan_is_written_for_an_aliased_column(settings) -> None:
    """The plan's rows are made by a function written for its columns, alike with an
    alias peewee cuts to an identifier; a row of another width is refused, not misread."""
    import pytest
    from peewee import fn

    from pbem.core.db.prepared import Prepared

    match_id = create_match("nim", [ANN, BEN], {}, settings.secret_key, START).match.id

    def odd(match_id: int):
        return (Seat.select(Seat, Player, fn.UPPER(Player.email).alias("it's {x}\\"))
                .join(Player).where(Seat.match == match_id).order_by(Seat.seat))

    def seen(row: Seat) -> tuple[dict, dict, dict]:
        return (row.__data__, row.player.__data__,
                {name: value for name, value in vars(row).items() if not name.startswith("_")})

    prepared = Prepared(odd)
    for _ in range(2):  # the first call plans, the second follows it
        row = prepared.rows(match_id)[0]
        assert seen(row) == seen(next(iter(odd(match_id))))
        assert ANN.upper() in seen(row)[2].values() and row.player.email == ANN
    plan = prepared._plans[id(database.obj)]
    assert plan is not None
    with pytest.raises(ValueError, match="columns"):
        plan.build((1, 2))


def test_a_row_plans_builder_keeps_every_name_as_a_string() -> None:
    """Names peewee would never send (it cuts an alias to a plain identifier) reach the
    written function intact as strings, never as code; a name given twice keeps its last
    value, as peewee's own rows do."""
    from pbem.core.db.prepared import _row_builder

    odd = ["a'b", "{x}", "\\", "'''", "\n", "\u2028", '"); import os; ("', "x"]
    build = _row_builder([Match, Player], [(0, name, None, False) for name in odd]
                         + [(1, "email", str.upper, False), (0, "extra'", None, True),
                            (0, "x", None, False)], [(0, "player", 1)])
    row = build((*range(len(odd)), "ann@example.org", "more", "last"))
    assert row.__data__ == {**{name: number for number, name in enumerate(odd)}, "x": "last"}
    assert row.__rel__["player"].__data__ == {"email": "ANN@EXAMPLE.ORG"}
    assert vars(row)["extra'"] == "more"


def test_a_value_its_converter_would_keep_is_taken_as_read() -> None:
    """A plain integer or text column's int or str (or None) is taken as the driver gives
    it; a value of another type still goes through the field's converter, as does every
    value of a field with a converter of its own (JSON, booleans, times, an override)."""
    import peewee

    from pbem.core.db.base import JSONField
    from pbem.core.db.prepared import _kept_as_read, _row_builder

    class Count(peewee.IntegerField):
        def python_value(self, value):  # an override: never skipped
            return None if value is None else value * 10

    fields = {"ply": Match.ply, "game": Match.game, "seat": Seat.seat, "match": Seat.match,
              "email": Player.email, "state": Match.state, "rated": Match.rated,
              "created_at": Match.created_at}
    kinds = {name: _kept_as_read(field.python_value) for name, field in fields.items()}
    assert kinds == {"ply": int, "game": str, "seat": int, "match": int, "email": str,
                     "state": None, "rated": None, "created_at": None}
    assert _kept_as_read(Count().python_value) is None
    assert _kept_as_read(JSONField().python_value) is None
    assert _kept_as_read(str.upper) is None

    build = _row_builder([Match], [(0, "ply", Match.ply.python_value, False),
                                   (0, "game", Match.game.python_value, False),
                                   (0, "rated", Match.rated.python_value, False),
                                   (0, "version", Count().python_value, False)], [])
    assert build((7, "nim", 1, 2)).__data__ == {"ply": 7, "game": "nim", "rated": True,
                                               "version": 20}
    # Other types are converted as peewee converts them; None stays None.
    assert build(("7", b"nim", 0, None)).__data__ == {"ply": 7, "game": "nim",
                                                      "rated": False, "version": None}
    assert build((None, None, None, None)).__data__ == {
        "ply": None, "game": None, "rated": None, "version": None}


def test_a_joined_row_read_again_in_one_answer_is_shared_when_asked(settings) -> None:
    """`share_joined`: a match's seats read with their match are peewee's rows, their match
    made once per answer (not once per seat), and a new answer makes it afresh."""
    from pbem.core.db.prepared import Prepared

    ids = [create_match("nim", [ANN, BEN, CAL][:2], {}, settings.secret_key, START,
                        seed=n).match.id for n in range(2)]

    def table(match_id: int):
        return (Seat.select(Seat, Match, Player).join(Match).switch(Seat).join(Player)
                .where(Seat.match == match_id).order_by(Seat.seat))

    shared, apart = Prepared(table, share_joined=True), Prepared(table)
    for match_id in ids + ids:  # the first call plans, the others follow it
        planned = shared._plans.get(id(database.obj)) is not None
        rows, own = shared.rows(match_id), apart.rows(match_id)
        peewees = list(table(match_id))
        for built in (rows, own):
            assert [(row.__data__, row.match.__data__, row.player.__data__) for row in built] \
                == [(row.__data__, row.match.__data__, row.player.__data__) for row in peewees]
        assert rows[0].player is not rows[1].player  # other keys: other rows
        assert own[0].match is not own[1].match
        if planned:
            assert rows[0].match is rows[1].match
    assert planned and shared.rows(ids[0])[0].match is not shared.rows(ids[0])[0].match


def test_a_player_seated_twice_is_one_row_of_the_table(settings) -> None:
    """The seat table's plan shares every joined row read twice: the computer at one level
    in both seats is one player row, as its match is one match row."""
    from pbem.core.matches.seat_links import seat_and_table

    made = create_match("nim", [], {"pile": "30"}, settings.secret_key, START,
                        computers={0: 1, 1: 1})
    for _ in range(2):  # the first read plans, the second follows the plan
        seat, seats = seat_and_table(made.tokens[0])
    assert seats[0].player is seats[1].player and seats[0].match is seats[1].match
    assert seats[0].player.__data__ == Player.get_by_id(seats[0].player_id).__data__
    assert seat is seats[0] and seats[0].player_id == seats[1].player_id


def test_a_read_that_first_answers_nothing_is_planned_where_the_driver_allows(settings
                                                                              ) -> None:
    """A read with no rows yet (no chat, no rating) is planned from its cursor's description
    where the driver keeps it (SQLite, MariaDB; psycopg's closed cursor has none, and the
    read is planned on its first row instead); its later rows are peewee's either way."""
    from pbem.core.db.connection import database as bound
    from pbem.core.db.prepared import Prepared

    def seats_of(match_id: int):
        return (Seat.select(Seat, Player).join(Player).where(Seat.match == match_id)
                .order_by(Seat.seat))

    prepared = Prepared(seats_of)
    assert prepared.rows(-1) == []
    described = not isinstance(bound.obj, __import__("peewee").PostgresqlDatabase)
    assert (prepared._plans.get(id(bound.obj)) is not None) == described
    match_id = create_match("nim", [ANN, BEN], {}, settings.secret_key, START).match.id
    for _ in range(2):
        assert _described(prepared.rows(match_id)) == _described(list(seats_of(match_id)))
    assert prepared._plans.get(id(bound.obj)) is not None
    assert Planned().rows(Match.select().where(Match.id == -1)) == []
