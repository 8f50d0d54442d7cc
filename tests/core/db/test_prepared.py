"""`Prepared` runs SQL compiled once and `Planned` a query compiled each time; either way the
rows are the rows peewee builds (joined rows and selected expressions included) on every
backend, and `share_joined` makes a joined row read again in one answer one object."""

from __future__ import annotations

from typing import Any

from playhouse.shortcuts import model_to_dict

from pbem.core.accounts.models import Player
from pbem.core.db.prepared import Planned, Prepared, add_row, insert_row
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match, Seat
from tests.conftest import START

ANN, BEN, CAL = "ann@example.org", "ben@example.org", "cal@example.org"


def _seats(match_ids: list[int]):
    return (Seat.select(Seat, Player).join(Player)
            .where(Seat.match.in_(match_ids)).order_by(Seat.match, Seat.seat))


def _described(rows: list[Any]) -> list[tuple[dict, dict, dict]]:
    """Each row's columns, its joined player's (if any) and its other attributes (a selected
    expression's), as public API reads them."""
    return [(model_to_dict(row, recurse=False),
             model_to_dict(row.player, recurse=False) if isinstance(row, Seat) else {},
             {name: value for name, value in vars(row).items() if not name.startswith("_")})
            for row in rows]


def test_planned_rows_are_peewees_rows(settings) -> None:
    ids = [create_match("nim", players, {}, settings.secret_key, START, seed=n).match.id
           for n, players in enumerate([[ANN, BEN], [BEN, CAL], [CAL, ANN]])]
    seats, matches = Planned(), Planned()
    for chosen in (ids[:1], ids, ids[1:]):
        assert _described(seats.rows(_seats(chosen))) == _described(list(_seats(chosen)))
        query = Match.select().where(Match.id.in_(chosen))
        assert _described(matches.rows(query)) == _described(list(query))
    built = seats.rows(_seats(ids))[0]
    assert built.player.email == ANN
    assert Planned().rows(Match.select().where(Match.id == -1)) == []


def test_prepared_tuples_are_peewees_tuples(settings) -> None:
    """A `.tuples()` SELECT: every column through its field's converter (a JSON column
    decoded, an EXISTS left as the driver gives it), as peewee's own rows."""
    from peewee import fn

    ids = [create_match("nim", players, {}, settings.secret_key, START, seed=n).match.id
           for n, players in enumerate([[ANN, BEN], [BEN, CAL]])]

    def query(match_id: int):
        return (Match.select(Match.id, Match.to_move, Match.state, Match.created_at,
                             fn.EXISTS(Seat.select(Seat.id).where(Seat.match == Match.id)))
                .where(Match.id == match_id).tuples())

    prepared = Prepared(query)
    for match_id in ids + ids:  # compiled on the first call, reused on the others
        assert prepared.rows(match_id) == list(query(match_id))
    row = prepared.first(ids[0])
    assert isinstance(row, tuple) and isinstance(row[1], list) and isinstance(row[2], dict)
    assert prepared.first(-1) is None


def test_model_rows_with_a_selected_expression_are_peewees_rows(settings) -> None:
    """An expression selected beside a model's fields (`EXISTS (…) AS name`, the door's
    pending answers) comes back as peewee sets it, converter included, on a plain or a
    joined shape, and one named like a field of the model sets that field."""
    from peewee import fn

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

    for build in (plain, joined, clashing):
        prepared = Prepared(build)
        for match_id in ids + ids:
            assert _described(prepared.rows(match_id)) == _described(list(build(match_id)))
    row = Prepared(plain).rows(ids[0])[0]
    assert row.latest == START and row.seated
    assert Prepared(joined).rows(ids[0])[0].shout == ANN.upper()
    assert Prepared(clashing).rows(ids[1])[0].game == "NIM"


def test_a_joined_row_read_again_in_one_answer_is_shared_when_asked(settings) -> None:
    """`share_joined`: a match's seats read with their match are peewee's rows, their match
    one object per answer (not one per seat), and a new answer makes it afresh."""
    ids = [create_match("nim", [ANN, BEN], {}, settings.secret_key, START,
                        seed=n).match.id for n in range(2)]

    def table(match_id: int):
        return (Seat.select(Seat, Match, Player).join(Match).switch(Seat).join(Player)
                .where(Seat.match == match_id).order_by(Seat.seat))

    def described(rows: list[Seat]) -> list[tuple[dict, dict, dict]]:
        return [(model_to_dict(row, recurse=False), model_to_dict(row.match, recurse=False),
                 model_to_dict(row.player, recurse=False)) for row in rows]

    shared, apart = Prepared(table, share_joined=True), Prepared(table)
    for match_id in ids + ids:
        rows, own = shared.rows(match_id), apart.rows(match_id)
        peewees = list(table(match_id))
        assert described(rows) == described(own) == described(peewees)
        assert rows[0].player is not rows[1].player  # other keys: other rows
        assert own[0].match is not own[1].match
        assert rows[0].match is rows[1].match
    assert shared.rows(ids[0])[0].match is not shared.rows(ids[0])[0].match


def test_a_shared_joined_row_is_made_once(settings, monkeypatch) -> None:
    """Once the shape of its rows is known, `share_joined` makes a match read with each of
    its seats once an answer, not once a seat (and without it, once a seat)."""
    match_id = create_match("nim", [ANN, BEN], {}, settings.secret_key, START).match.id

    def table(match_id: int):
        return (Seat.select(Seat, Match, Player).join(Match).switch(Seat).join(Player)
                .where(Seat.match == match_id).order_by(Seat.seat))

    shared, apart = Prepared(table, share_joined=True), Prepared(table)
    shared.rows(match_id), apart.rows(match_id)  # the first answers find the shape
    made: list[Match] = []
    make = Match.__init__

    def counted(self: Match, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        make(self, *args, **kwargs)

    monkeypatch.setattr(Match, "__init__", counted)
    rows = shared.rows(match_id)
    assert len(made) == 1 and made[0] is rows[0].match is rows[1].match
    made.clear()
    rows = apart.rows(match_id)
    assert len(made) == 2 and made[0] is rows[0].match and made[1] is rows[1].match


def test_a_player_seated_twice_is_one_row_of_the_table(settings) -> None:
    """The seat table shares every joined row read twice: the computer at one level in both
    seats is one player row, as its match is one match row."""
    from pbem.core.matches.seat_links import seat_and_table

    made = create_match("nim", [], {"pile": "30"}, settings.secret_key, START,
                        computers={0: 1, 1: 1})
    seat, seats = seat_and_table(made.tokens[0])
    assert seats[0].player is seats[1].player and seats[0].match is seats[1].match
    assert model_to_dict(seats[0].player, recurse=False) == model_to_dict(
        Player.get_by_id(seats[0].player_id), recurse=False)
    assert seat is seats[0] and seats[0].player_id == seats[1].player_id


def test_an_inserted_row_is_the_row_create_makes(settings) -> None:
    """`insert_row` writes the columns given and the model's defaults, as `create` does,
    whether a foreign key is given as a row or as its id."""
    ann = Player.create(email=ANN, created_at=START)
    made = insert_row(Player, email=BEN, created_at=START)
    assert model_to_dict(Player.get_by_id(made.id), recurse=False) == model_to_dict(
        made, recurse=False)
    match_id = create_match("nim", [ANN, CAL], {}, settings.secret_key, START).match.id
    seen: list[int] = []
    for given in ({"player": ann}, {"player_id": ann.id}):
        seat = insert_row(Seat, match=match_id, seat=7 + len(seen), **given,
                          token_hash=f"link {len(seen)}")
        seen.append(seat.id)
        assert Seat.get_by_id(seat.id).player_id == ann.id


def test_a_plain_shape_is_made_without_peewee_after_its_first_rows(settings,
                                                                  monkeypatch) -> None:
    """Tuples, and whole models joined on required foreign keys, are built by peewee only
    for the first answer with rows; a partial model (its other columns unknown) always is;
    an empty answer never is."""
    import peewee

    match_id = create_match("nim", [ANN, BEN], {}, settings.secret_key, START).match.id
    built: list[object] = []
    real = peewee.CursorWrapper.__init__

    def counting(self, cursor) -> None:
        built.append(self)
        real(self, cursor)
    monkeypatch.setattr(peewee.CursorWrapper, "__init__", counting)

    def table(match_id: int):
        return (Seat.select(Seat, Match, Player).join(Match).switch(Seat).join(Player)
                .where(Seat.match == match_id).order_by(Seat.seat))

    def pairs(match_id: int):
        return Seat.select(Seat.seat, Seat.player).where(Seat.match == match_id).tuples()

    def partial(match_id: int):
        return Match.select(Match.id, Match.game).where(Match.id == match_id)

    def seen(rows: list[Any]) -> list[Any]:
        return rows if rows and isinstance(rows[0], tuple) else _described(rows)

    for build, by_peewee in ((table, 1), (pairs, 1), (partial, 3)):
        prepared = Prepared(build, share_joined=build is table)
        built.clear()
        assert prepared.rows(-1) == []  # no rows: the shape is not known yet
        for _ in range(3):
            assert seen(prepared.rows(match_id)) == seen(list(build(match_id)))
        # Built by peewee: ours, and the three compared with (an empty answer builds none).
        assert len(built) == by_peewee + 3, build


def test_an_added_row_is_the_row_create_makes(settings) -> None:
    """`add_row` writes what `insert_row` writes: the columns given (a foreign key as a row
    or as its id) and the model's defaults, called where they are functions."""
    ann = Player.create(email=ANN, created_at=START)
    add_row(Player, email=BEN, created_at=START)
    match_id = create_match("nim", [ANN, CAL], {}, settings.secret_key, START).match.id
    add_row(Seat, match=match_id, seat=7, player=ann, token_hash="link 7")
    add_row(Seat, match_id=match_id, seat=8, player_id=ann.id, token_hash="link 8")
    made = Player.get(Player.email == BEN)
    expected = model_to_dict(Player(email=BEN, created_at=START), recurse=False)
    assert {**model_to_dict(made, recurse=False), "id": None} == expected
    seats = Seat.select().where(Seat.match == match_id, Seat.seat >= 7).order_by(Seat.seat)
    assert [(seat.seat, seat.player_id, seat.token_generation) for seat in seats] == [
        (7, ann.id, 1), (8, ann.id, 1)]
