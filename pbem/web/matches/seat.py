"""A seat's private page, `/play/<token>`. GET only shows; POST submits a move; the other
POSTs declare a vacation and set the board's confirmation step."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import date
from typing import Any

import peewee
from flask import (
    Blueprint,
    Flask,
    current_app,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup
from werkzeug.wrappers import Response

from pbem.core.accounts.players import set_submit_without_confirm
from pbem.core.conversation import personal
from pbem.core.conversation.chat import (
    MAX_MESSAGE,
    players_room,
    players_room_ahead,
    spectators_room,
)
from pbem.core.db.connection import database, is_unavailable, unavailable_reason
from pbem.core.db.memo import VersionMemo
from pbem.core.db.pipeline import ReadAhead, read_ahead
from pbem.core.db.text import check_text
from pbem.core.matches import conditional, vacations
from pbem.core.matches.changes import AlreadyDoneError, Channel
from pbem.core.matches.models import Seat
from pbem.core.matches.play import MAX_MOVE_TEXT, submit_move
from pbem.core.matches.seat_links import seat_and_table, seat_for_token, seat_ref_for_token
from pbem.core.matches.visits import note_visit, visit_due
from pbem.core.ratings.queries import seat_ratings, shown_for_ahead
from pbem.core.records.match_record import VERSION_PARTS, beyond_version, public_record, seat_record
from pbem.core.takebacks import rules as takeback_rules
from pbem.core.tournaments.table import tournament_of_match, tournament_of_match_ahead
from pbem.errors import InvalidRequestError, PbemError
from pbem.games import describe, get_rules
from pbem.games.base import RulesError
from pbem.games.lines import MAX_LINES, MAX_PLIES, LineError, analyse, parse_conditional_text
from pbem.i18n import LANGUAGES, N_, _, current, ngettext, per_language
from pbem.web.follow.offline import idempotency_key
from pbem.web.follow.presence import note_presence
from pbem.web.matches.clicks import click_moves
from pbem.web.matches.public import poll_tag, requested_moves, requested_ply
from pbem.web.matches.text_view import line_answer
from pbem.web.site.clock import now
from pbem.web.site.errors import problem
from pbem.web.site.flashes import flash_in, redirect_with
from pbem.web.site.fragments import value_key
from pbem.web.site.inputs import tick_box, whole_number
from pbem.web.site.kept_pages import page_keeper
from pbem.web.site.security import private

log = logging.getLogger(__name__)
bp = Blueprint("play", __name__)

# The check box's label here and on /me/settings (and in the message refusing odd input).
SUBMIT_WITHOUT_CONFIRM = N_("Submit moves without confirming")


@bp.get("/play/<token>")
def show(token: str) -> Response:
    # The seat rows feed the record and the ratings beside the names: read with the seat.
    seat, seats = seat_and_table(token)
    with read_ahead(*_page_reads(seat, seats)):
        _note_visit(seat)
        shown = requested_ply(seat.match.ply)
        record = record_for(seat, shown, seats)
        # `?ply=n` looks back at an earlier position, as spectators see it (a seat's own past
        # view is not kept); the live position stays the page without `?ply`.
        replay = (public_record(seat.match, now(), shown)
                  if shown is not None and shown != record["ply"] else None)
        return page(seat, record, status=200, replay=replay, seats=seats)


def _page_reads(seat: Seat, seats: list[Seat]) -> list[ReadAhead]:
    """The reads `page` makes that need only the seat, sent together: on PostgreSQL the page
    then waits for them once, not four times (the seat's notes and tree, the players'
    ratings, the match's tournament and the players' chat)."""
    return [personal.private_of_ahead(seat),
            shown_for_ahead([row.player_id for row in seats], seat.match.game),
            tournament_of_match_ahead(seat.match_id),
            players_room_ahead(seat, _chat_before())]


@bp.post("/play/<token>")
def move(token: str) -> Response:
    # The door reads the match itself: only a refusal needs the whole seat, for the page.
    ref = seat_ref_for_token(token)
    # A typed move wins over the list: typing is the deliberate act (and the click-to-move
    # script sends its move there), while a list left on an earlier pick is easy to miss.
    text = (request.form.get("move_text") or "").strip() or (request.form.get("move") or "")
    ply = whole_number(request.form.get("ply", ""))
    if not text.strip():
        return _refused(token, 422, _("Choose a move or type one."))
    if ply is None:
        return _refused(token, 400,
                        _("The form was incomplete (no move number). Reload the page."))
    try:
        result = submit_move(ref.match_id, ref.seat, text, ply, now(),
                             offer_draw=request.form.get("offer_draw") == "yes",
                             idempotency_key=idempotency_key(request.form),
                             # A page from before the takeback form field: no check.
                             expected_takebacks=whole_number(request.form.get("takebacks", "")))
    except AlreadyDoneError:
        # The same move sent again (kept offline and sent when back, web/follow/offline.py).
        return redirect_with(_("Your move was already made."), "play.show", token=token)
    except (RulesError, PbemError) as error:
        status = 422 if isinstance(error, RulesError) else error.status
        kept = text if len(text) <= MAX_MOVE_TEXT else ""
        return _refused(token, status, str(error), typed=kept)
    news = "; ".join(result.events)
    said = [_("Your move %(move)s was made.", move=result.text)]
    if news:
        said.append(f"{news}.")
    if result.answered_with:
        said.append(_("Your opponent answered at once with %(move)s, a conditional move.",
                      move=result.answered_with))
    if request.form.get("offer_draw") == "yes":
        said.append(_("You offered a draw."))
    return redirect_with(" ".join(said), "play.show", token=token)


def _refused(token: str, status: int, error: str, typed: str = "") -> Response:
    """The play page again, saying why the move was not made."""
    seat = seat_for_token(token)
    return page(seat, record_for(seat), status=status, error=error, typed=typed)


@bp.post("/play/<token>/conditional")
def store_conditional(token: str) -> Response:
    """The page's form: the seat's lines in the reply grammar (one `if … then …` a line), or
    the Clear button. Without script, as with it (the analysis board uses the API)."""
    seat = seat_for_token(token)
    text = (request.form.get("lines") or "").strip()
    ply = whole_number(request.form.get("ply", ""))
    clear = request.form.get("clear") == "yes" or not text
    try:
        if len(text) > conditional.MAX_LINE_TEXT:
            raise LineError(_("the lines are too long together (at most %(limit)s characters)",
                              limit=conditional.MAX_LINE_TEXT))
        check_text(text, "conditional moves")
        clauses = [] if clear else parse_conditional_text(", ".join(text.splitlines()))
        stored = conditional.store(seat.match_id, seat.seat, [], now(), expected_ply=ply,
                                   clauses=clauses)
    except (RulesError, PbemError) as error:
        status = 422 if isinstance(error, RulesError) else error.status
        return page(seat, record_for(seat), status=status,
                    conditional_error=_("Your conditional moves were not stored: %(why)s",
                                        why=error),
                    conditional_text=text)
    count = len(stored.lines)
    return redirect_with(_("Your conditional moves are cleared.") if not count else
                         ngettext("Stored %(num)s conditional line; only you can see them until "
                                  "they are played.", "Stored %(num)s conditional lines; only "
                                  "you can see them until they are played.", count),
                         "play.show", section="conditional", token=token)


@bp.post("/play/<token>/vacation")
def vacation(token: str) -> Response:
    seat = seat_for_token(token)
    settings = current_app.config["PBEM_SETTINGS"]
    try:
        first = _date(request.form.get("first_day", ""),
                      _("The first day must be a date like 2026-07-01."))
        last = _date(request.form.get("last_day", ""),
                     _("The last day must be a date like 2026-07-01."))
        declared = vacations.declare(seat.player_id, first, last,
                                     settings.vacation_days_per_year, now())
    except PbemError as error:
        return page(seat, record_for(seat), status=error.status, error=str(error))
    return redirect_with(_("Vacation saved: your clocks stop from %(first)s to %(last)s.",
                           first=first, last=last) + " " + _who_hears(len(declared.matches), True),
                         "play.show", section="vacation", token=token)


@bp.post("/play/<token>/vacation/<int:vacation_id>/cancel")
def cancel_vacation(token: str, vacation_id: int) -> Response:
    seat = seat_for_token(token)
    try:
        cancelled = vacations.cancel(seat.player_id, vacation_id, now())
    except PbemError as error:
        return page(seat, record_for(seat), status=error.status, error=str(error))
    told = _who_hears(len(cancelled.matches), False)
    if cancelled.ended:
        flash_in("vacation", _("Welcome back: your vacation ended now, and your clocks run "
                               "again.") + " " + told)
    else:
        flash_in("vacation", _("Vacation withdrawn: its days are yours again.") + " " + told)
    return redirect(url_for("play.show", token=token) + "#vacation", code=303)


@bp.post("/play/<token>/settings")
def save_settings(token: str) -> Response:
    """The board's confirmation step. It is the seat's player's setting (also on
    /me/settings): as on the rest of this page, the link holder acts as that player. The
    page's script sends each tick and asks for JSON back; as a plain form (its Save button)
    the post comes back to the page with a message."""
    seat = seat_for_token(token)
    script = request.accept_mimetypes.best == "application/json"
    try:
        on = tick_box(request.form, "submit_without_confirm", _(SUBMIT_WITHOUT_CONFIRM))
    except PbemError as error:
        if script:
            return problem(error.status, str(error))
        return page(seat, record_for(seat), status=error.status, error=str(error))
    set_submit_without_confirm(seat.player_id, on)
    if script:
        return jsonify({"submit_without_confirm": on})
    return redirect_with(_("Saved: on the board, a move is sent as soon as your clicks spell "
                           "it.") if on else
                         _("Saved: on the board, a move waits for you to press Submit move."),
                         "play.show", token=token)


def move_list(value: object, name: str) -> list[str]:
    """A JSON list of move texts, checked for shape and size (the rules check the moves)."""
    if not isinstance(value, list) or len(value) > MAX_PLIES:
        raise InvalidRequestError(_('%(name)s must be a list of at most %(limit)s moves, like '
                                    '["e2-e3", "e7-e6"]', name=name, limit=MAX_PLIES))
    for text in value:
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE_TEXT:
            raise InvalidRequestError(_("each move in %(name)s must be notation of 1 to "
                                        "%(limit)s characters, not %(given)r", name=name,
                                        limit=MAX_MOVE_TEXT, given=str(text)[:40]))
        check_text(text, "move")
    return [text.strip() for text in value]


def line_lists(value: object, name: str) -> list[list[str]]:
    """A JSON list of lines, each a list of move texts."""
    if not isinstance(value, list) or len(value) > MAX_LINES:
        raise InvalidRequestError(_('%(name)s must be a list of at most %(limit)s lines, each a '
                                    'list of moves: [["their move", "my answer"], ...]',
                                    name=name, limit=MAX_LINES))
    return [move_list(line, _("each line of %(name)s", name=name)) for line in value]


def analysis_for(seat: Seat, moves: list[str], board: bool = False,
                 ask: str | None = None) -> dict[str, Any]:
    """The analysis board's answer for a hypothetical line from the seat's live position
    (nothing is stored or sent); with `board`, the final position's board drawing and its
    click data for the page script; with `ask`, a line of text mode, `said`: its answer about
    the line's end (None when it is no command, so a move to add to the line). Only where
    conditional moves are offered: a game with hidden information would show through its
    replayed positions what the seat may not know."""
    match = seat.match
    if not conditional.offered(match.game):
        raise LineError(_("%(game)s has no analysis board (its moves are hidden or "
                          "simultaneous decisions)", game=describe(match.game).title))
    rules = get_rules(match.game)
    start = rules.load(match.state)
    answer = analyse(rules, start, seat.seat, moves)
    final = answer.pop("final_state")
    answer["ply"] = match.ply
    if board:
        seats = rules.to_move(final)
        view = answer["positions"][-1]["view"]
        legal = answer["legal_moves"]
        answer["board_html"] = render_template(
            f"games/{match.game}/board.html", view=view, seat=seat.seat, legal_moves=legal,
            over=not seats)
        # Click notes speak to the seat to move (either side, on this board).
        answer["clicks"] = (click_moves(match.game, rules.view(final, min(seats)), legal)
                            if legal else None)
    if ask is not None:
        answer["said"] = line_answer(match, rules, start, seat.seat, answer, ask)
    return answer


def as_grammar(lines: list[list[str]]) -> str:
    """Lines in the reply grammar, one `if … then …` a line (the form shows them so)."""
    return "\n".join(f"if {line[0]} then {' '.join(line[1:])}" for line in lines)


def record_for(seat: Seat, shown: int | None = None, seats: list[Seat] | None = None) -> dict:
    """The seat's record; its move list is the page holding `shown` when looking back."""
    settings = current_app.config["PBEM_SETTINGS"]
    record = seat_record(seat, now(), settings.vacation_days_per_year,
                         requested_moves(seat.match.ply), shown, seats)
    # What the seat may do about a takeback now (core/takebacks: above the records' tier).
    record["takeback"] = takeback_rules.can(seat.match, seat.seat) if seat.match.is_live else None
    # The move forms carry it with the ply: a takeback since makes them stale.
    record["takebacks"] = seat.match.takebacks or 0
    return record


def _date(text: str, refusal: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise InvalidRequestError(refusal) from None


def _who_hears(matches: int, declared: bool) -> str:
    """Who hears of a vacation `declared` or called off, by how many matches are in play."""
    # Vacation notices are news: only players who chose every email are mailed them
    # (preferences.CATEGORIES), while the match pages show the vacation to everyone.
    if matches == 0:
        return _("You have no match in play, so nobody was told.")
    if declared:
        return ngettext("Your opponents in %(num)s match in play see it on its page; those who "
                        "chose every email are also mailed.",
                        "Your opponents in %(num)s matches in play see it on their pages; "
                        "those who chose every email are also mailed.", matches)
    return ngettext("Your match in play notes it in its history, and opponents who chose "
                    "every email are mailed.",
                    "Your %(num)s matches in play note it in their history, and opponents who "
                    "chose every email are mailed.", matches)


def page(seat: Seat, record: dict, status: int, error: str | None = None, typed: str = "",
         replay: dict | None = None, conditional_text: str | None = None,
         conditional_error: str | None = None,
         chat_typed: str = "", notes_typed: str | None = None,
         seats: list[Seat] | None = None) -> Response:
    """The play page showing `record`, the seat's record as read with `seat.match` (and
    `seats`, its seat rows, when given); under the board, the players' chat (`?before=` pages
    back) and the seat's own notes."""
    clicks_json = _clicks_json(seat, record) if record["legal_moves"] else None
    board = None if replay else _board_html(seat, record)
    # The seat's own conditional moves (only ever shown here, on its private page).
    # Its tree, its notes and its chat mute, in one round trip.
    private = personal.private_of(seat)
    lines = conditional.as_stored(seat.match, private.tree)
    # The seat's forms (vacation, settings, resign, draw…) post to addresses under its own
    # (/play/<token>/…, routed here and in lifecycle.py): one url_for, not one per form.
    seat_url = url_for("play.show", token=(request.view_args or {})["token"])
    # A page read again with nothing of it changed is sent as it was (kept_pages.py). The
    # board, the click data and the version parts are made from the record (and the
    # language), once per match version and seat: the version and seat stand for them in
    # the key, too large to hash on each read. The record is hashed as `record_key` gives it
    # (its largest parts by their digest); the rest is keyed by its value.
    derived = {"clicks": clicks_json, "board": board, "script_words": script_words(),
               "parts": version_parts(seat, record, replay, typed, seat_url), "record": record}
    response = make_response(page_keeper().render(
        "play/play.html", (seat.match_id, seat.match.version, seat.seat), derived,
        record_key=record_key(seat, record), error=error, typed=typed, replay=replay,
        submit_label=SUBMIT_WITHOUT_CONFIRM, poll_tag=poll_tag(seat.match),
        conditional=lines, conditional_text=(conditional_text if conditional_text is not None
                                             else as_grammar(lines.lines)),
        conditional_error=conditional_error, seat_url=seat_url,
        seat_ratings=seat_ratings(seat.match, seats),
        tournament=tournament_of_match(seat.match_id),
        talk=seat_talk(seat, record, chat_typed, notes_typed, private)), status)
    # The page is private to the seat: never cache it anywhere.
    response.headers["Cache-Control"] = "no-store"
    return response


def record_key(seat: Seat, record: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """The seat's record as a key hashes it (kept pages, kept answers and their ETag): its
    VERSION_PARTS, two thirds of its bytes, by their digest, made once per match version,
    seat, language and page of moves; the rest as it is. Equal keys mean equal records in
    any worker of any release, since the digest is of the parts themselves."""
    window = record["moves_page"]
    digest = _PART_DIGESTS.remember(
        seat.match, lambda: value_key({name: record[name] for name in sorted(VERSION_PARTS)}),
        seat.seat, current(), window["first"], window["last"])
    return digest, beyond_version(record)


def _clicks_json(seat: Seat, record: dict[str, Any]) -> Markup | None:
    """The click-to-move script's data for the seat's legal moves, as compact JSON made safe
    inside <script> (`tojson` sorts every key of the up to hundreds of clicks, a good share
    of the page's rendering). Its words are in the reader's language; the rest follows from
    the match version, so it is made once per version, seat and language."""
    def make() -> Markup | None:
        clicks = click_moves(record["game"], record["view"], record["legal_moves"])
        return (htmlsafe_json_dumps(clicks, dumps=json.dumps, separators=(",", ":"))
                if clicks else None)
    # The record is the seat's at the match version it was read with (`record_for`).
    return _CLICKS.remember(seat.match, make, seat.seat, current())


def version_parts(seat: Seat, record: dict[str, Any], replay: dict | None, typed: str,
                  seat_url: str) -> dict[str, Markup]:
    """The play page's parts that follow from the match version, as HTML by block name
    (`play/_version_parts.html`): the move form, the replay buttons with the board as text, and
    the move list. The plain page (`GET /play/<token>` without a query) makes them once per
    version, seat, address and language, with the few small values they test; any other page
    (a look back, a refused form's answer) renders them afresh. They were a sixth of a page
    read again."""
    shown_here = request.endpoint == "play.show"
    def make() -> dict[str, Markup]:
        template = current_app.jinja_env.get_template("play/_version_parts.html")
        # A refused form's page answers another address (…/vacation): its move list's pages
        # link the seat's page, not that one.
        context = template.new_context({"record": record, "replay": replay, "typed": typed,
                                        "seat_url": seat_url,
                                        "pager_url": None if shown_here else seat_url})
        return {name: Markup("".join(block(context)))
                for name, block in template.blocks.items()}
    if not shown_here or replay is not None or typed or request.query_string:
        return make()
    # The version fixes every value the blocks read; the ones tested are in the key as well,
    # so a record read some other way (a refusal's, an error page's) cannot be mistaken.
    tested = (record["ply"], record["your_turn"], record["status"],
              "offer-draw" in record["can"], record["takebacks"])
    return _PARTS.remember(seat.match, make, seat.seat, current(), seat_url, tested)


def _board_html(seat: Seat, record: dict[str, Any]) -> Markup:
    """The board of the match now, as the seat sees it: made once per match version, seat and
    language, like the click data (the board is the costliest part of the page to render)."""
    def make() -> Markup:
        return Markup(render_template(
            f"games/{record['game']}/board.html", view=record["view"], seat=record["seat"],
            legal_moves=record["legal_moves"], over=record["status"] != "active"))
    return _BOARDS.remember(seat.match, make, seat.seat, current())


# Boards are the largest (up to about 55 KB of SVG, Frozen Forest's): the few hottest kept.
# Each rendered memo also has a budget in bytes, whatever its values weigh.
_CLICKS: VersionMemo[Markup | None] = VersionMemo(32, budget=64 * 1024)
_PART_DIGESTS: VersionMemo[bytes] = VersionMemo(64)
_BOARDS: VersionMemo[Markup] = VersionMemo(16, budget=128 * 1024)
# A few KB each (a move list page and a form listing the legal moves).
_PARTS: VersionMemo[dict[str, Markup]] = VersionMemo(32, budget=128 * 1024)
# The memos of rendered HTML, each with its budget (a test holds that they have one).
RENDERED_MEMOS: dict[str, VersionMemo[Any]] = {
    "boards": _BOARDS, "click data": _CLICKS, "page parts": _PARTS}


@per_language(len(LANGUAGES))
def script_words() -> Markup:
    """The page script's sentences (play.js `say`) in the reader's language, as JSON made safe
    inside <script>; `{name}` marks what the script fills in. The same for every page in a
    language, so made once per language rather than translated and encoded on each page."""
    env = current_app.jinja_env
    return htmlsafe_json_dumps(_script_sentences(), dumps=env.policies["json.dumps_function"],
                               **env.policies["json.dumps_kwargs"])


def _script_sentences() -> dict[str, str]:
    return {
        "notContinue": _(
            "%(token)s does not continue %(picked)s: click %(next)s (%(options)s), or click "
            "%(last)s again to take it back.",
            token="{token}", picked="{picked}", next="{next}", options="{options}", last="{last}"),
        "noteStart": _(
            "%(note)s Click %(start)s (%(starts)s).",
            note="{note}", start="{start}", starts="{starts}"),
        "cannotStart": _(
            "%(token)s cannot start a move now: click %(start)s (%(starts)s).",
            token="{token}", start="{start}", starts="{starts}"),
        "readyOrGoOn": _(
            "Your move: %(move)s. Press Submit move to send it, or go on with %(options)s.",
            move="{move}", options="{options}"),
        "ready": _("Your move: %(move)s. Press Submit move to send it.", move="{move}"),
        "selected": _(
            "Selected %(picked)s. Now click %(next)s: %(options)s.",
            picked="{picked}", next="{next}", options="{options}"),
        "clickStart": _("Click %(start)s: %(options)s.", start="{start}", options="{options}"),
        "saving": _("Saving…"),
        "savedGo": _("Saved: your moves now go as soon as they are complete."),
        "savedWait": _("Saved: your moves now wait for Submit move."),
        "notSaved": _(
            "Your setting was not saved (the server did not accept it). Reload the page and try "
            "again."),
        "closeAnalysis": _("Close the analysis board"),
        "openAnalysis": _("Open the analysis board"),
        "line": _("Line: %(moves)s", moves="{moves}"),
        "yours": _("you %(move)s", move="{move}"),
        "theirs": _("they %(move)s", move="{move}"),
        "positionNow": _("The position now (move %(ply)s).", ply="{ply}"),
        "lineRule": _("A line starts with your opponent's move and ends with your answer."),
        "gameOver": _("Game over in this line: %(reason)s.", reason="{reason}"),
        "noLegal": _("%(token)s starts no legal move here.", token="{token}"),
        "noMove": _("No move to play here."),
        "selectedOneOf": _(
            "Selected %(picked)s: now click one of %(options)s.",
            picked="{picked}", options="{options}"),
        "youToMove": _("You to move: click a highlighted square or choice."),
        "toMove": _("%(who)s to move: click a highlighted square or choice.", who="{who}"),
        "youToMoveText": _("You to move: type a move or a command."),
        "toMoveText": _("%(who)s to move: type a move or a command.", who="{who}"),
    }


def seat_talk(seat: Seat, record: dict, chat_typed: str, notes_typed: str | None,
              private: personal.SeatPrivate) -> dict:
    """What the play page shows of the conversation: only this seat's match's players' room
    (the spectators' room once the match is over), and only this seat's notes."""
    before = _chat_before()
    messages, older = players_room(seat, before)
    match = seat.match
    gallery = (spectators_room(match, seat.player)[0] if not match.is_live else [])
    return {"messages": messages, "older": older, "paged": before is not None,
            "typed": chat_typed, "limit": MAX_MESSAGE,
            "notes": private.notes if notes_typed is None else notes_typed,
            "notes_limit": personal.MAX_NOTES,
            "muted": private.muted,
            "barred": seat.player.chat_barred_at is not None, "gallery": gallery,
            "labels": {p["seat"]: p["label"] for p in record["players"]}}


def _chat_before() -> int | None:
    """The chat page asked for (`?before=`: the messages older than that id), or None."""
    return whole_number(request.args.get("before", "")) if request.args.get("before") else None


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


def _note_visit(seat: Seat) -> None:
    """Note the visit for an admin weighing a timeout; a database that refuses the write
    (read-only after a failover) must not cost the player their page. Most visits write
    nothing (one was noted a moment ago): those open no transaction, so a play page pays no
    BEGIN and COMMIT round trips on a database server."""
    note_presence(seat.match_id, seat.seat)
    when = now()
    if not visit_due(seat, when):
        return
    try:
        with database.atomic():  # a savepoint: a refused write leaves the page's reads intact
            note_visit(seat, when)
    except peewee.DatabaseError as error:
        if not is_unavailable(error):
            raise
        log.warning("visit to match %s not noted: %s", seat.match_id, unavailable_reason(error))


def api_seat_action(service: Callable[..., str]) -> Callable[[str], Response]:
    """An API view for one of a seat's actions (resign, a draw, a takeback…): done through
    `service`, answered with the seat's new record and what was done as `done`."""
    def view(token: str) -> Response:
        seat = seat_for_token(token)
        done = service(seat.match_id, seat.seat, now(), via=Channel.API)
        record = record_for(seat_for_token(token))  # read again: the action changed the match
        record["done"] = done
        return private(jsonify(record))
    return view
