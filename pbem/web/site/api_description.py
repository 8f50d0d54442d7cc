"""The JSON API described in OpenAPI 3.1, served by `openapi.py` at `/api/openapi.json` and
browsable at `/api/docs`.

The description is data built here, next to nothing else, so that client generators, API
explorers and property-based testers (schemathesis) read what the server really does.
`tests/web/site/test_openapi.py` holds it to the app: every JSON route is described and every
described operation is routed; CI runs schemathesis against a live server with it.

Schemas name the fields a client may rely on; objects stay open (`additionalProperties` is
allowed) so that adding a field is never a breaking change.
"""

from __future__ import annotations

from typing import Any

from pbem.core.conversation.chat import MAX_MESSAGE as CHAT_LIMIT
from pbem.core.conversation.personal import MAX_NOTES as NOTES_LIMIT
from pbem.core.lobby.challenges import MAX_OPPONENTS
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.core.push import subscriptions
from pbem.core.tournaments.service import FORMATS as TOURNAMENT_FORMATS
from pbem.games import REGISTRY
from pbem.i18n import N_

JSON = "application/json"
PROBLEM = "application/problem+json"

# --- building blocks -------------------------------------------------------------------------


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _object(required: tuple[str, ...] = (), **properties: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


STRING: dict[str, Any] = {"type": "string"}
# A browser's push subscription (`PushSubscription.toJSON()`): the push service's URL, its
# P-256 public key (65 bytes) and its secret (16 bytes), both base64url.
PUSH_ENDPOINT: dict[str, Any] = {"type": "string", "maxLength": subscriptions.MAX_ENDPOINT,
                                 "pattern": f"^{subscriptions.ENDPOINT_PATTERN}$"}
P256DH: dict[str, Any] = {"type": "string", "pattern": f"^{subscriptions.P256DH_PATTERN}$"}
PUSH_AUTH: dict[str, Any] = {"type": "string", "pattern": f"^{subscriptions.AUTH_PATTERN}$"}
INTEGER: dict[str, Any] = {"type": "integer"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}
NUMBER: dict[str, Any] = {"type": "number"}
# A seek's rating range: players whose shown rating is outside it neither see nor join it.
RATING_BOUND: dict[str, Any] = {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 10000},
                                          {"type": "null"}]}
TIME: dict[str, Any] = {"type": "string", "description": N_("UTC, ISO 8601, ending in Z")}
ANY_OBJECT: dict[str, Any] = {"type": "object"}
GAME: dict[str, Any] = {"type": "string", "enum": sorted(REGISTRY),
                        "description": N_("a game's slug (GET /games lists them)")}
ON_TIMEOUT: dict[str, Any] = {"type": "string", "enum": list(TimeoutPolicy.ALL)}
# A time control: a bank per move ("3d"), or Fischer: bank + increment / cap ("7d+1d/14d");
# units d, h, m, s; no span over a year (a longer one is refused with 422).
CLOCK: dict[str, Any] = {
    "type": "string", "examples": ["3d", "7d+1d/14d"],
    "pattern": (r"^\s*[0-9]{1,9}\s*[dhms]\s*"
                r"(\+\s*[0-9]{1,9}\s*[dhms]\s*/\s*[0-9]{1,9}\s*[dhms]\s*)?$")}
# Options are each game's own (GET /games/<slug> describes them); a name or value the game
# does not take is refused with 422.
OPTIONS: dict[str, Any] = {"type": "object",
                           "additionalProperties": {"type": ["string", "boolean", "integer"]}}


def _answer(description: str, schema: dict[str, Any], status: str = "200") -> dict[str, Any]:
    return {status: {"description": description, "content": {JSON: {"schema": schema}}}}


def _problems(*statuses: int) -> dict[str, Any]:
    words = {400: N_("The request is malformed; its detail says how."),
             401: N_("No valid Bearer token."),
             403: N_("Not yours, or not allowed for this token."),
             404: N_("No such match, seat link, challenge or seek."),
             409: N_("Not allowed now (stale, repeated, or the match moved on); the detail says "
                     "why."),
             413: N_("The body is too large."),
             415: N_("The body's content type is not accepted."),
             422: N_("Well-formed, but refused: a move the rules refuse, or a value nothing here "
                     "can act on; the detail says why."),
             429: N_("Too many requests; see the Retry-After header."),
             503: N_("The database is unavailable; try again after Retry-After seconds.")}
    return {str(status): {"description": words[status],
                          "content": {PROBLEM: {"schema": _ref("Problem")}}}
            for status in statuses}


def _operation(summary: str, responses: dict[str, Any], *, tag: str,
               body: dict[str, Any] | None = None, bearer: str = "",
               parameters: list[dict[str, Any]] | None = None,
               operation_id: str) -> dict[str, Any]:
    operation: dict[str, Any] = {"summary": summary, "tags": [tag],
                                 "operationId": operation_id,
                                 "responses": {**responses, **_problems(503)}}
    if parameters:
        operation["parameters"] = parameters
    if body is not None:
        operation["requestBody"] = {"required": True, "content": {JSON: {"schema": body}}}
        # A body over the server's `max_request_bytes` is refused before any view reads it.
        operation["responses"].update(_problems(413))
    if bearer:  # the token scope the operation needs
        operation["security"] = [{"bearer": []}]
        operation["description"] = _NEEDS_SCOPE[bearer]
        operation["responses"].update(_problems(401, 403))
    return operation


# What an operation behind a token says of the scope it needs.
_NEEDS_SCOPE = {
    "read": N_("Needs a personal API token with the `read` scope."),
    "play": N_("Needs a personal API token with the `play` scope."),
    "account": N_("Needs a personal API token with the `account` scope."),
}


def _path_parameter(name: str, description: str, integer: bool = False) -> dict[str, Any]:
    schema = {"type": "integer", "minimum": 1, "maximum": 2**31 - 1} if integer else STRING
    return {"name": name, "in": "path", "required": True, "description": description,
            "schema": schema}


def _query_parameter(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "schema": schema}


TOKEN = _path_parameter("token", N_("The seat's private link token (from its mail or /api/me)."))
MATCH_ID = _path_parameter("match_id", N_("The match's number."), integer=True)
CHALLENGE_ID = _path_parameter("challenge_id", N_("The challenge's number."), integer=True)
SEEK_ID = _path_parameter("seek_id", N_("The seek's number."), integer=True)
VACATION_ID = _path_parameter("vacation_id", N_("The vacation's number."), integer=True)
TOURNAMENT_ID = _path_parameter("tournament_id", N_("The tournament's number."), integer=True)
LEAGUE_ID = _path_parameter("league_id", N_("The league's number."), integer=True)
LADDER_ID = _path_parameter("ladder_id", N_("The ladder's number."), integer=True)
# Move numbers: at most nine digits (a longer number is malformed, 400); one the match has not
# reached is 422 for a page of moves (`moves`) and 404 for a position (`ply`: it does not exist).
# An empty value is the same as none (forms send one).
MOVE_NUMBER: dict[str, Any] = {"anyOf": [
    {"type": "integer", "minimum": 0, "maximum": 999_999_999},
    {"type": "string", "maxLength": 0}]}
PLY = _query_parameter("ply", N_("Show the position after this move (0 is the start)."),
                       MOVE_NUMBER)
MOVES = _query_parameter("moves", N_("The page of the move list that ends at this move."),
                         MOVE_NUMBER)

# --- schemas ---------------------------------------------------------------------------------

DEADLINE = _nullable(_object(("at",), at=TIME, utc=STRING, left=STRING, time_control=STRING))

# Seats: `seat` is the 0-based index every list and request uses; `seat_number` the 1-based
# number pages and mails name a player by ("Player 2").
SEAT_INDEX: dict[str, Any] = {"type": "integer", "minimum": 0, "description": N_(
    "the seat's index, counted from 0 in the order the players were listed")}
SEAT_NUMBER: dict[str, Any] = {"type": "integer", "minimum": 1, "description": N_(
    "the seat counted from 1, as pages and mails name it (“Player 2”): always seat + 1")}

COMPUTERS: dict[str, Any] = {
    "type": "array", "maxItems": 3, "items": {"type": "integer", "minimum": 1, "maximum": 5},
    "description": N_("a mixed table (Mimic Taking): seats the computer fills, one level each")}

# A committed deal's fields (core/records/deals.py), in the match record and record.json.
DEAL_FIELDS: dict[str, Any] = {
    "deal_scheme": {"type": "string", "const": "pbem-deal-v1"},
    "deal_commitment": {"type": "string", "description": N_(
        "SHA-256 of the seed's 32 bytes and the match id in ASCII digits, published before "
        "any card was dealt")},
    "deal_match": {"type": "integer", "description": N_("the match id the commitment names")},
    "deal_salts": {"type": "array", "items": _nullable(STRING), "description": N_(
        "each seat's salt, in seat order; null for a seat whose salt the first deal still "
        "waits for")},
    "deal_seed": _nullable({"type": "string", "description": N_(
        "64 hexadecimal digits; null until the match has ended")}),
}

SCHEMAS: dict[str, Any] = {
    "Problem": _object(("title", "status", "detail"), type=STRING, title=STRING,
                       status=INTEGER, detail=STRING),
    "Player": _object(("seat", "seat_number", "name"), seat=SEAT_INDEX,
                      seat_number=SEAT_NUMBER, label=STRING, name=STRING,
                      undeliverable=BOOLEAN,
                      computer={**_nullable(INTEGER),
                                "description": N_("the computer's level while it plays the "
                                                  "seat, else null")},
                      email={"type": "string", "description": N_("only your own seat's")}),
    "Result": _nullable(_object(
        ("winners",), headline=STRING, reason=STRING,
        winners={"type": "array", "items": INTEGER},
        scores={"type": "array", "items": _object(seat=INTEGER, name=STRING,
                                                  score={"type": "number"})})),
    "Move": _object(("ply", "seat", "text"), ply=INTEGER, seat=INTEGER, by=STRING,
                    text=STRING, events={"type": "array", "items": STRING}, at=TIME,
                    autoplayed=_nullable(STRING), conditional=BOOLEAN),
    "MovesPage": _object(("first", "last", "total"), first=INTEGER, last=INTEGER,
                         total=INTEGER, earlier=_nullable(INTEGER), later=_nullable(INTEGER)),
    "Clock": _object(("seat", "seat_number"), seat=SEAT_INDEX, seat_number=SEAT_NUMBER,
                     label=STRING, deadline=DEADLINE,
                     allowance=STRING,
                     computer={"type": "boolean",
                               "description": N_("the computer plays the seat: no clock runs")}),
    "MatchRecord": _object(
        ("match", "game", "status", "ply", "to_move", "players", "view", "moves"),
        match=INTEGER, game=STRING, title=STRING,
        status={"type": "string", "enum": ["active", "finished", "aborted"]},
        ply=INTEGER, to_move={"type": "array", "items": INTEGER},
        players={"type": "array", "items": _ref("Player")}, result=_ref("Result"),
        created_at=TIME, time_control=STRING, on_timeout=STRING,
        unrated={"type": "boolean", "description": N_("a computer plays or played a seat")},
        rulings={"type": "array", "items": ANY_OBJECT},
        view={"type": "object", "description": N_("the position as this reader may see it; "
                                                  "its shape is the game's")},
        board_text=STRING, moves={"type": "array", "items": _ref("Move")},
        moves_page=_ref("MovesPage"), clocks={"type": "array", "items": _ref("Clock")},
        shown_ply=INTEGER, shown_to_move={"type": "array", "items": STRING},
        away={"type": "array", "description": N_("players of a live match on vacation now "
                                                  "(current) or later; their clock stops then"),
              "items": _object(("seat", "name", "from", "to", "text", "current"), seat=INTEGER,
                               name=STRING, to=TIME, current=BOOLEAN,
                               text={"type": "string", "description": N_(
                                   "the days away in the reader's language, the last one "
                                   "included")},
                               **{"from": TIME})},
        deal=_nullable({**_object(
            ("deal_scheme", "deal_commitment", "deal_salts", "deal_seed"),
            **DEAL_FIELDS), "description": N_(
                "a committed deal (hidden cards): anyone can check it once the match ends "
                "(docs: Fair play); null for a match without one")})),
    "SeatRecord": {"allOf": [_ref("MatchRecord"), _object(
        ("seat", "seat_number", "your_turn", "legal_moves", "can"),
        seat=SEAT_INDEX, seat_number=SEAT_NUMBER, seat_label=STRING, your_turn=BOOLEAN,
        legal_moves={"type": "array", "items": STRING}, deadline=DEADLINE,
        timezone=_nullable(STRING), submit_without_confirm=BOOLEAN, text_mode=BOOLEAN,
        vacation={**ANY_OBJECT, "description": N_(
            "this year's allowance (year, days, used, left) and “upcoming”: the vacations "
            "still to end, each with its id (to call it off), from, to, text (the days in the "
            "reader's language) and whether it is current")},
        draw_offer=_nullable(_object(("by",), by=INTEGER, label=STRING,
                                     accepted_by={"type": "array", "items": INTEGER},
                                     at=TIME)),
        out_of_time={"type": "array", "items": _object(
            ("seat", "seat_number", "label"), seat=SEAT_INDEX, seat_number=SEAT_NUMBER,
            label=STRING)},
        can={"type": "array", "items": {"type": "string", "enum": [
            "move", "resign", "offer-draw", "accept-draw", "decline-draw", "abort",
            "claim-victory"]}},
        applied=_object(("move",), move=STRING, events={"type": "array", "items": STRING},
                        conditional_answer=_nullable(STRING)),
        takeback=_nullable({**_object(
            ("request", "refused", "answer", "standing"), request=BOOLEAN,
            refused=_nullable(STRING), answer=BOOLEAN,
            standing=_nullable(_object(("seat", "ply", "accepted_by"), seat=INTEGER,
                                       ply=INTEGER,
                                       accepted_by={"type": "array", "items": INTEGER}))),
            "description": N_("What the seat may do about a takeback now: “request” (its "
                              "last move), or why not (“refused”); “answer” a standing "
                              "request (“standing”: who asked, the move number)")}),
        takebacks={**INTEGER, "description": N_(
            "how many moves of the match were taken back: send it with a move to have the "
            "move refused if one was taken back since")},
        done=STRING)]},
    "MoveRequest": {**_object(("move", "ply"), move={"type": "string", "minLength": 1,
                                                      "maxLength": 200, "pattern": r"\S",
                                                      "examples": ["e2-e3"]},
                              ply={"type": "integer", "minimum": 0},
                              takebacks={"type": "integer", "minimum": 0, "description": N_(
                                  "the record's “takebacks” you saw: a move taken back "
                                  "since makes the move stale (409)")},
                              offer_draw=BOOLEAN,
                              # A move sent twice with one key is made once (a retry).
                              idempotency_key={"type": "string", "minLength": 1,
                                               "maxLength": 64,
                                               "pattern": "^[A-Za-z0-9_-]+$"}),
                    "additionalProperties": False},
    "ConditionalLines": _object(
        ("lines", "ply", "version", "offered"),
        lines={"type": "array", "items": {"type": "array", "items": STRING},
               "description": N_("each line: their move, your answer, their next move, …")},
        ply={**INTEGER, "description": N_("the move number the lines start from")},
        version={**INTEGER, "description": N_("how often they were replaced; 0: none stored")},
        offered={**BOOLEAN, "description": N_("whether this game offers conditional moves")},
        moves=INTEGER),
    "SaltRequest": {**_object(
        salt={"type": "string", "maxLength": 64, "description": N_(
            "any one line of text; empty or left out: take the salt you were given")},
        ply={"type": "integer", "minimum": 0, "description": N_("the move number you saw")}),
        "additionalProperties": False},
    "ConditionalRequest": {**_object(
        ("lines",),
        lines={"type": "array", "maxItems": 40,
               "items": {"type": "array", "maxItems": 40,
                         "items": {"type": "string", "minLength": 1, "maxLength": 200,
                                   "pattern": r"\S"}},
               "examples": [[["c2-c3", "d4-d5"], ["b1-b2", "a3-a2", "e5-e6", "f4-f3"]]]},
        ply={"type": "integer", "minimum": 0,
             "description": N_("the move number you saw: lines made on an older position are "
                               "refused (409)")}),
        "additionalProperties": False},
    "VacationRequest": {**_object(
        ("first_day", "last_day"),
        first_day={"type": "string", "format": "date", "examples": ["2026-07-01"],
                   "description": N_("the first day away (UTC), today at the earliest")},
        last_day={"type": "string", "format": "date", "examples": ["2026-07-14"],
                  "description": N_("the last day away, included")}),
        "additionalProperties": False},
    "AnalyseRequest": {**_object(
        (), moves={"type": "array", "maxItems": 40,
                   "items": {"type": "string", "minLength": 1, "maxLength": 200,
                             "pattern": r"\S"}, "examples": [["e2-e3", "e9-e8"]]},
        board={**BOOLEAN, "description": N_("also answer the board drawing (HTML) and its "
                                            "click data, for the play page's script")},
        ask={"type": "string", "minLength": 1, "maxLength": 200, "pattern": r"\S",
             "examples": ["row 3"],
             "description": N_("a line of text mode (a command such as “row 3”, “square b2” "
                               "or “moves”), answered in “said” about the line's last "
                               "position")}),
        "additionalProperties": False},
    "Analysis": _object(
        ("moves", "positions", "to_move", "legal_moves", "outcome", "ply"),
        moves={"type": "array", "items": STRING, "description": N_("the line, as canonical "
                                                                  "notation")},
        positions={"type": "array", "items": _object(
            ("ply", "view"), ply=INTEGER, move=_nullable(STRING), seat=_nullable(INTEGER),
            view=ANY_OBJECT)},
        to_move={"type": "array", "items": INTEGER}, to_move_label=_nullable(STRING),
        legal_moves={"type": "array", "items": STRING}, board_text=STRING,
        outcome=_nullable(_object(("winners", "scores", "reason"),
                                  winners={"type": "array", "items": INTEGER},
                                  scores={"type": "array", "items": {"type": "number"}},
                                  reason=STRING)),
        ply={**INTEGER, "description": N_("the live position's move number the line starts "
                                          "from")},
        board_html=STRING, clicks=_nullable(ANY_OBJECT),
        said=_nullable({**STRING, "description": N_(
            "with “ask”: text mode's answer about the line's last position, in the reader's "
            "language; null when the line asked is no command (the page's script then adds "
            "it to the line as a move)")})),
    "ArchiveRow": _object(("id", "game", "status", "players"), id=INTEGER, game=STRING,
                          title=STRING, status=STRING,
                          players={"type": "array", "items": _object(
                              ("seat", "name"), seat=INTEGER, name=STRING,
                              public_page=BOOLEAN, outcome=_nullable(STRING))},
                          result=_nullable(ANY_OBJECT), moves=INTEGER, created_at=TIME,
                          last_activity=TIME, url=STRING, record=STRING),
    "ArchivePage": _object(("matches", "next"), filters=ANY_OBJECT,
                           matches={"type": "array", "items": _ref("ArchiveRow")},
                           next=_nullable(STRING), next_url=_nullable(STRING)),
    "Challenge": _object(("id", "status"), id=INTEGER, status=STRING, game=STRING,
                         title=STRING, options=ANY_OBJECT, clock=STRING, clock_text=STRING,
                         on_timeout=STRING, seat_order=STRING, challenger=STRING,
                         opponents={"type": "array", "items": _object(
                             ("name", "status"), name=STRING, status=STRING, email=STRING)},
                         created_at=TIME, expires_at=TIME, expires_text=STRING,
                         rematch_of=_nullable(INTEGER), rated=BOOLEAN,
                         ratings={"type": "object", "additionalProperties": STRING,
                                  "description": N_("each player's rating as shown, by name "
                                                    "(\"1000?\" while provisional)")},
                         computers={"type": "array", "items": INTEGER},
                         match=_nullable({"anyOf": [INTEGER, _object(
                             ("id",), id=INTEGER, link=_nullable(STRING))]}),
                         your_answer=_nullable(STRING)),
    "ChallengeRequest": {**_object(
        ("game", "opponents"), game=GAME,
        opponents={"type": "array", "items": {"type": "string", "format": "email"},
                   "minItems": 1, "maxItems": MAX_OPPONENTS, "uniqueItems": True},
        options=OPTIONS, clock=CLOCK, on_timeout=ON_TIMEOUT,
        seat_order={"type": "string", "enum": ["random", "as-listed"]},
        rated={**BOOLEAN, "default": True}, computers=COMPUTERS),
        "additionalProperties": False},
    "ComputerRequest": {**_object(
        ("game", "level"), game=GAME,
        level={"type": "integer", "minimum": 1, "maximum": 5,
               "description": N_("The computer's level: 1 (beginner) to 5 (expert).")},
        options=OPTIONS, clock=CLOCK,
        seat={"oneOf": [{"type": "integer", "minimum": 0, "maximum": 3},
                        {"type": "string", "enum": ["random"]}],
              "description": N_("Your seat: 0 moves first; \"random\" draws it.")},
        players={"type": "integer", "minimum": 2, "maximum": 4,
                 "description": N_("Mimic Taking: 3 or 4 (every seat but yours the "
                                   "computer's); other games are for 2.")}),
        "additionalProperties": False},
    "MatchAnalysis": _object(
        ("match", "status", "level", "plies"), match=INTEGER,
        status={"type": "string", "enum": ["none", "queued", "done", "failed"]},
        level=INTEGER, requested_at=TIME,
        plies={"type": "array", "items": _object(
            ("ply", "seat", "played", "best", "estimate", "played_estimate", "mistake"),
            ply=INTEGER, seat=INTEGER, played=STRING, best=STRING,
            estimate={"type": "number", "minimum": 0, "maximum": 1},
            played_estimate={"type": "number", "minimum": 0, "maximum": 1},
            mistake=BOOLEAN)}),
    "ComputerMatch": _object(("match",), match=_object(
        ("id", "seat", "link", "token"), id=INTEGER, seat=INTEGER, link=STRING, token=STRING)),
    "Seek": _object(("id",), id=INTEGER, game=STRING, title=STRING, options=ANY_OBJECT,
                    clock=STRING, clock_text=STRING, on_timeout=STRING, players=INTEGER,
                    status=STRING, creator=STRING, joined={"type": "array", "items": STRING},
                    you_joined=BOOLEAN, yours=BOOLEAN, match=_nullable(INTEGER),
                    created_at=TIME, rated=BOOLEAN,
                    rating_range=_nullable(_object(min=_nullable(INTEGER),
                                                   max=_nullable(INTEGER))),
                    ratings={"type": "object", "additionalProperties": STRING},
                    computers={"type": "array", "items": INTEGER}),
    "SeekRequest": {**_object(("game", "players"), game=GAME, options=OPTIONS,
                              clock=CLOCK,
                              players={"type": "integer", "minimum": 2, "maximum": 4},
                              on_timeout=ON_TIMEOUT, rated={**BOOLEAN, "default": True},
                              rating_min=RATING_BOUND, rating_max=RATING_BOUND,
                              computers=COMPUTERS),
                    "additionalProperties": False},
    "Me": _object(("email", "matches", "challenges"), email=STRING, name=_nullable(STRING),
                  matches={"type": "array", "items": _object(
                      ("id", "game"), id=INTEGER, game=STRING,
                      status=STRING, your_turn=BOOLEAN, link=STRING, token=STRING,
                      deadline=_nullable(TIME))},
                  challenges=_object(received={"type": "array", "items": _ref("Challenge")},
                                     sent={"type": "array", "items": _ref("Challenge")}),
                  calendar_url={**STRING, "description": N_(
                      "the player's secret calendar feed of their deadlines (iCalendar); the "
                      "mail preferences page replaces it")},
                  feeds=_object(("turns", "games"), turns=STRING, games=STRING)),
    "PushEndpoint": _object(("endpoint",), endpoint=PUSH_ENDPOINT),
    "PushSubscription": _object(("endpoint", "keys"), endpoint=PUSH_ENDPOINT,
                                keys=_object(("p256dh", "auth"), p256dh=P256DH, auth=PUSH_AUTH)),
    "MailSettings": {**_object(mail_pref={"type": "string",
                                          "enum": ["each", "turns", "digest", "off"]},
                               digest_hour={"type": "integer", "minimum": 0, "maximum": 23},
                               timezone=_nullable(STRING),
                               language=_nullable({"type": "string",
                                                   "enum": ["en", "de", "ja"]})),
                     "additionalProperties": False},
    "MailSettingsAnswer": _object(("mail_pref", "digest_hour"), mail_pref=STRING,
                                  digest_hour=INTEGER, timezone=_nullable(STRING),
                                  language=_nullable(STRING), next_digest_at=_nullable(TIME)),
    "Ply": _object(("ply", "status", "version"), ply=INTEGER, status=STRING, version=INTEGER),
    "Record": _object(("format", "version", "match", "game", "players", "moves"),
                      format={"const": "pbem-record"}, version=INTEGER, match=INTEGER,
                      game=STRING, title=STRING, rules_version=INTEGER, options=ANY_OBJECT,
                      seed=_nullable(INTEGER), status=STRING,
                      players={"type": "array", "items": ANY_OBJECT},
                      moves={"type": "array", "items": ANY_OBJECT},
                      result=_nullable(ANY_OBJECT), rated=BOOLEAN, **DEAL_FIELDS,
                      ratings=_nullable({"type": "array", "items": _object(
                          ("seat", "mu_before", "sigma_before", "mu_after", "sigma_after"),
                          seat=INTEGER, mu_before=NUMBER, sigma_before=NUMBER,
                          days_away=INTEGER, rank=INTEGER, mu_after=NUMBER,
                          sigma_after=NUMBER, rating_before=INTEGER,
                          rating_after=INTEGER)})),
    "Rating": _object(("rating", "mu", "sigma", "games", "provisional"), rating=INTEGER,
                      mu=NUMBER, sigma=NUMBER, games=INTEGER, provisional=BOOLEAN),
    "PublicPlayer": _object(("name", "ratings"), name=STRING, url=STRING,
                      record={"type": "array", "items": ANY_OBJECT},
                      ratings={"type": "object", "additionalProperties": _ref("Rating"),
                               "description": N_("by game slug")}),
    "Leaderboard": _object(("game", "players", "next"), game=STRING,
                           players={"type": "array", "items": _object(
                               ("rank", "name", "rating"), rank=INTEGER, name=STRING,
                               rating=INTEGER, mu=NUMBER, sigma=NUMBER, games=INTEGER,
                               provisional=BOOLEAN, wins=INTEGER, draws=INTEGER,
                               losses=INTEGER)},
                           next=_nullable(STRING), next_url=_nullable(STRING)),
    "ChatMessage": _object(("id", "author", "text", "at", "ply", "mine"), id=INTEGER,
                           author=STRING, seat=_nullable(INTEGER),
                           text={"type": "string", "description": N_("plain text, as typed: "
                                    "escape it wherever you show it")},
                           at=TIME, ply=INTEGER, mine=BOOLEAN),
    "ChatPage": _object(("match", "seat", "messages", "next"), match=INTEGER, seat=INTEGER,
                        messages={"type": "array", "items": _ref("ChatMessage")},
                        next=_nullable({"type": "string", "description": N_("the next (older) "
                                           "page's address; null on the last page")}),
                        muted=BOOLEAN),
    "ChatRequest": {**_object(("text",), text={"type": "string", "minLength": 1,
                                               "maxLength": CHAT_LIMIT}),
                    "additionalProperties": False},
    "Notes": _object(("text",), text={"type": "string", "maxLength": NOTES_LIMIT}),
    "TournamentRequest": {**_object(
        ("name", "game", "format"), name={"type": "string", "minLength": 1, "maxLength": 80},
        game=GAME, options=OPTIONS, clock=CLOCK, on_timeout=ON_TIMEOUT,
        format={"type": "string", "enum": list(TOURNAMENT_FORMATS)},
        rounds=_nullable({"type": "integer", "minimum": 1, "maximum": 30,
                          "description": N_("Swiss and tables only")}),
        min_players={"type": "integer", "minimum": 2, "maximum": 500},
        max_players={"type": "integer", "minimum": 2, "maximum": 500},
        rated={**BOOLEAN, "default": True}, starts_at=_nullable(TIME), invitation_only=BOOLEAN,
        invited=_nullable({"type": "array", "items": STRING}),
        round_days={"type": "integer", "minimum": 1, "maximum": 365},
        max_replays={"type": "integer", "minimum": 0, "maximum": 10}),
        "additionalProperties": False},
    "LeagueRequest": {**_object(
        ("name", "game"), name={"type": "string", "minLength": 1, "maxLength": 80},
        game=GAME, options=OPTIONS, clock=CLOCK, on_timeout=ON_TIMEOUT, rated=BOOLEAN,
        division_size={"type": "integer", "minimum": 3, "maximum": 12,
                       "description": N_("two-player games: players per division")},
        table_size={"type": "integer", "minimum": 3, "maximum": 4,
                    "description": N_("games for three or four: seats per table")},
        tables_per_division={"type": "integer", "minimum": 1, "maximum": 4},
        promote={"type": "integer", "minimum": 0, "maximum": 6},
        relegate={"type": "integer", "minimum": 0, "maximum": 6},
        season_days={"type": "integer", "minimum": 7, "maximum": 365},
        break_days={"type": "integer", "minimum": 0, "maximum": 90},
        start_days={"type": "integer", "minimum": 0, "maximum": 90,
                    "description": N_("days until the first season starts")}),
        "additionalProperties": False},
    "League": _object(
        ("id", "name", "game", "status", "members"),
        id=INTEGER, name=STRING, game=STRING, title=STRING, organiser=STRING, clock=STRING,
        on_timeout=STRING, options=ANY_OBJECT, rated=BOOLEAN, division_size=INTEGER,
        table_size=_nullable(INTEGER), promote=INTEGER, relegate=INTEGER,
        season_days=INTEGER, break_days=INTEGER,
        status={"type": "string", "enum": ["open", "running", "break"]}, season=INTEGER,
        next_season_at=_nullable(TIME),
        members={"type": "array", "items": _object(("name", "status"), name=STRING,
                                                   status=STRING)},
        seasons={"type": "array", "items": _object(
            ("number", "divisions"), number=INTEGER, started_at=TIME, ends_at=TIME,
            finished_at=_nullable(TIME), on_hold={"type": "array", "items": STRING},
            divisions={"type": "array", "items": _object(
                ("number", "standings", "matches"), number=INTEGER,
                players={"type": "array", "items": STRING},
                standings={"type": "array", "items": _object(
                    ("rank", "player", "points"), rank=INTEGER, player=STRING,
                    points={"type": "number"}, played=INTEGER, games=INTEGER,
                    move=_nullable({"type": "string", "enum": ["up", "down"]}),
                    tiebreaks={"type": "object",
                               "additionalProperties": {"type": "number"}})},
                matches={"type": "array", "items": _object(
                    ("match", "players", "status"), match=INTEGER, status=STRING,
                    players={"type": "array", "items": STRING},
                    winners=_nullable({"type": "array", "items": INTEGER}))})})}),
    "LadderRequest": {**_object(
        ("name", "game"), name={"type": "string", "minLength": 1, "maxLength": 80},
        game=GAME, options=OPTIONS, clock=CLOCK, on_timeout=ON_TIMEOUT, rated=BOOLEAN,
        challenge_range={"type": "integer", "minimum": 1, "maximum": 50},
        incoming_limit={"type": "integer", "minimum": 1, "maximum": 20},
        accept_days={"type": "integer", "minimum": 1, "maximum": 60}),
        "additionalProperties": False},
    "LadderChallengeRequest": {
        **_object(place={"type": "integer", "minimum": 1, "maximum": 100000},
                  player={"type": "string", "minLength": 1, "maxLength": 64}),
        "minProperties": 1, "maxProperties": 1, "additionalProperties": False},
    "LadderAcceptRequest": {**_object(("challenge",), challenge={
        "type": "integer", "minimum": 1, "maximum": 2**31 - 1}), "additionalProperties": False},
    "Ladder": _object(
        ("id", "name", "game", "players"),
        id=INTEGER, name=STRING, game=STRING, title=STRING, organiser=STRING, clock=STRING,
        on_timeout=STRING, options=ANY_OBJECT, rated=BOOLEAN, challenge_range=INTEGER,
        incoming_limit=INTEGER, accept_days=INTEGER, players=INTEGER,
        challenge=INTEGER, match=INTEGER,
        places={"type": "array", "items": _object(("place", "player", "on_hold"),
                                                  place=INTEGER, player=STRING,
                                                  on_hold=BOOLEAN)},
        challenges={"type": "array", "items": _object(
            ("id", "challenger", "defender", "status"), id=INTEGER, challenger=STRING,
            defender=STRING, status=STRING, match=_nullable(INTEGER),
            created_at=TIME, open=BOOLEAN)}),
    "Tournament": _object(
        ("id", "name", "game", "format", "status", "players"),
        id=INTEGER, name=STRING, game=STRING, title=STRING, format=STRING,
        status={"type": "string", "enum": ["open", "running", "finished", "cancelled"]},
        paused=BOOLEAN, organiser=STRING, clock=STRING, on_timeout=STRING,
        options=ANY_OBJECT, rounds_planned=_nullable(INTEGER), min_players=INTEGER,
        max_players=INTEGER, rated=BOOLEAN, invitation_only=BOOLEAN, round_days=INTEGER,
        starts_at=_nullable(TIME), started_at=_nullable(TIME), finished_at=_nullable(TIME),
        forfeited=INTEGER,
        players={"type": "array", "items": _object(("name",), name=STRING, status=STRING,
                                                   seed=_nullable(INTEGER))},
        rounds={"type": "array", "items": _object(
            ("number", "status", "pairings"), number=INTEGER, status=STRING,
            deadline=_nullable(TIME),
            pairings={"type": "array", "items": _object(
                ("match", "players", "result"), match=_nullable(INTEGER),
                players={"type": "array", "items": STRING},
                result=_nullable({"type": "array", "items": {"type": "number"}}),
                board=INTEGER, game=INTEGER, bye=BOOLEAN, forfeit=BOOLEAN)})},
        standings={"type": "array", "items": _object(
            ("rank", "player", "points", "tiebreaks"), rank=INTEGER, player=STRING,
            points={"type": "number"},
            tiebreaks={"type": "object", "additionalProperties": {"type": "number"}})}),
}

# --- operations ------------------------------------------------------------------------------

_SEAT_ACTIONS = (
    ("resign", N_("Resign the match.")),
    ("draw/yes", N_("Offer a draw, or accept the standing offer.")),
    ("draw/no", N_("Decline the standing draw offer.")),
    ("abort", N_("Abort the match (only before it is under way).")),
    ("claim-victory", N_("Claim the win when an opponent's time has run out.")),
    ("takeback", N_("Ask to take back your last move (only before anyone else has moved; "
                    "never in rated or tournament matches).")),
    ("takeback/accept", N_("Accept the standing takeback request.")),
    ("takeback/decline", N_("Decline the standing takeback request.")),
)


def _seat_action(path: str, summary: str) -> dict[str, Any]:
    return {"post": _operation(
        summary, {**_answer(N_("The new record, with its “done” saying what happened."),
                            _ref("SeatRecord")), **_problems(404, 409)},
        tag="Seat", parameters=[TOKEN],
        operation_id="seat_" + path.replace("/", "_").replace("-", "_"))}


def _challenge_action(verb: str, summary: str) -> dict[str, Any]:
    return {"post": _operation(summary, {**_answer(N_("The challenge as it is now."),
                                                   _ref("Challenge")),
                                         **_problems(403, 404, 409)},
                               tag="Challenges", bearer="play", parameters=[CHALLENGE_ID],
                               operation_id=f"challenge_{verb}")}


PATHS: dict[str, Any] = {
    "/api/play/{token}": {
        "get": _operation(N_("A seat's record: the position as the seat sees it, its legal "
                             "moves, clocks and what it may do now. Answers 304 to a "
                             "matching If-None-Match: send back the ETag to poll cheaply."),
                          {**_answer(N_("The seat's record."), _ref("SeatRecord")),
                           "304": {"description": N_("Nothing changed since the ETag you "
                                                     "sent.")},
                           **_problems(400, 404, 422)},
                          tag="Seat", parameters=[TOKEN, MOVES], operation_id="seat_state"),
        "post": _operation(N_("Make a move. Send the ply you saw: a stale or repeated "
                              "submission is refused, never applied twice."),
                           {**_answer(N_("The new record, with “applied”: the move as played."),
                                      _ref("SeatRecord")),
                            **_problems(400, 404, 409, 422)},
                           tag="Seat", body=_ref("MoveRequest"), parameters=[TOKEN],
                           operation_id="seat_move"),
    },
    **{f"/api/play/{{token}}/{path}": _seat_action(path, summary)
       for path, summary in _SEAT_ACTIONS},
    "/api/play/{token}/salt": {"put": _operation(
        N_("Add the seat's salt to a committed deal, while the first deal waits for salts "
           "(a salt is public once added, and cannot be changed). Anything else is refused "
           "(422) with the reason."),
        {**_answer(N_("The seat's record after it."), _ref("SeatRecord")),
         **_problems(400, 404, 409, 422)},
        tag="Seat", body=_ref("SaltRequest"), parameters=[TOKEN], operation_id="salt_put")},
    "/api/play/{token}/conditional": {
        "get": _operation(N_("The seat's own conditional moves (nobody else ever sees them)."),
                          {**_answer(N_("The stored lines."), _ref("ConditionalLines")),
                           **_problems(404)},
                          tag="Seat", parameters=[TOKEN], operation_id="conditional_get"),
        "put": _operation(N_("Replace the seat's conditional moves: lines of their move, your "
                             "answer, … Each move is checked where it would arise; a line that "
                             "cannot arise is refused (422) with the reason. An empty list "
                             "clears them."),
                          {**_answer(N_("The lines as stored (canonical notation)."),
                                     _ref("ConditionalLines")),
                           **_problems(400, 404, 409, 422)},
                          tag="Seat", body=_ref("ConditionalRequest"), parameters=[TOKEN],
                          operation_id="conditional_put"),
        "delete": _operation(N_("Clear the seat's conditional moves."),
                             {**_answer(N_("No lines."), _ref("ConditionalLines")),
                              **_problems(404, 409, 422)},
                             tag="Seat", parameters=[TOKEN], operation_id="conditional_delete"),
    },
    "/api/play/{token}/vacation": {"post": _operation(
        N_("Declare a vacation for the seat's player: their clocks in all their matches stop "
           "from the first day to the last (whole UTC days), within the yearly allowance. "
           "Their opponents see it on the match pages; those who chose every email are also "
           "mailed."),
        {**_answer(N_("The new record; its “vacation” lists the vacations to come."),
                   _ref("SeatRecord"), "201"), **_problems(400, 404, 422)},
        tag="Seat", body=_ref("VacationRequest"), parameters=[TOKEN],
        operation_id="vacation_declare")},
    "/api/play/{token}/vacation/{vacation_id}": {"delete": _operation(
        N_("Call off a vacation (its id is in the record's “vacation”): one still to come (or "
           "begun less than 15 minutes ago) is withdrawn and its days are free again; one "
           "under way ends now. The opponents in live matches are told, as of a vacation."),
        {**_answer(N_("The new record, with “done”: “withdrawn” or “ended”."),
                   _ref("SeatRecord")), **_problems(404, 409)},
        tag="Seat", parameters=[TOKEN, VACATION_ID], operation_id="vacation_cancel")},
    "/api/play/{token}/analyse": {"post": _operation(
        N_("The analysis board: play a hypothetical line from the live position (nothing is "
           "stored or sent) and get each position as the seat sees it, the legal moves at its "
           "end and the outcome if it ends the game. With “ask”, text mode's commands read the "
           "line's last position."),
        {**_answer(N_("The line's positions."), _ref("Analysis")), **_problems(400, 404, 422)},
        tag="Seat", body=_ref("AnalyseRequest"), parameters=[TOKEN],
        operation_id="analyse")},
    "/api/play/{token}/chat": {
        "get": _operation(N_("The players' chat of the seat's match, newest first, a keyset page "
                             "at a time (follow “next”). Only the match's seats read it; "
                             "messages from players the seat's player blocked are left out."),
                          {**_answer(N_("A page of messages."), _ref("ChatPage")),
                           **_problems(400, 404)},
                          tag="Seat", operation_id="seat_chat",
                          parameters=[TOKEN, _query_parameter(
                              "before", N_("Only messages older than this message id."),
                              {"type": "integer", "minimum": 1, "maximum": 999_999_999}),
                              _query_parameter("limit", N_("How many (1 to 100; 30 by default)."),
                                               {"type": "integer", "minimum": 1,
                                                "maximum": 100})]),
        "post": _operation(N_("Write to the players' chat (plain text). A longer message than "
                              "the limit is refused whole (422); at most a few a minute per "
                              "player (429 with Retry-After); 403 if an admin barred the player."),
                           {**_answer(N_("The message as posted."), _ref("ChatMessage"), "201"),
                            **_problems(400, 403, 404, 422, 429)},
                           tag="Seat", body=_ref("ChatRequest"), parameters=[TOKEN],
                           operation_id="seat_chat_post"),
    },
    "/api/play/{token}/notes": {
        "get": _operation(N_("The seat's private notes (only this seat's link reads them)."),
                          {**_answer(N_("The notes; \"\" when there are none."), _ref("Notes")),
                           **_problems(404)},
                          tag="Seat", parameters=[TOKEN], operation_id="seat_notes"),
        "put": _operation(N_("Replace the seat's private notes (\"\" clears them); too long: 422, "
                             "nothing saved."),
                          {**_answer(N_("The notes as saved."), _ref("Notes")),
                           **_problems(400, 404, 422)},
                          tag="Seat", body=_ref("Notes"), parameters=[TOKEN],
                          operation_id="seat_notes_put"),
    },
    "/api/matches": {"get": _operation(
        N_("The archive, newest first, a keyset page at a time."),
        {**_answer(N_("A page of matches and the cursor of the next."), _ref("ArchivePage")),
         **_problems(400, 422)},
        tag="Archive", operation_id="archive",
        parameters=[_query_parameter("game", N_("A game's slug (empty: any)."),
                                     {"type": "string", "enum": ["", *sorted(REGISTRY)]}),
                    _query_parameter("player", N_("A player's display name (any case)."),
                                     STRING),
                    _query_parameter("status", N_("live, finished or aborted (empty: any)."),
                                     {"type": "string",
                                      "enum": ["", "live", "active", "finished", "aborted"]}),
                    _query_parameter("result", N_("win, loss or draw (with player; empty: any)."),
                                     {"type": "string", "enum": ["", "win", "loss", "draw"]}),
                    _query_parameter("cursor", N_("From the previous page's “next”."), STRING),
                    _query_parameter("limit", N_("Matches per page (at most 100)."),
                                     {"type": "integer", "minimum": 1, "maximum": 100})])},
    "/api/matches/{match_id}": {"get": _operation(
        N_("A match's public record, as a spectator sees it."),
        {**_answer(N_("The public record."), _ref("MatchRecord")), **_problems(400, 404, 422)},
        tag="Archive", parameters=[MATCH_ID, PLY, MOVES], operation_id="match_record")},
    "/matches/{match_id}/record.json": {"get": _operation(
        N_("The downloadable record: enough to replay the match with the rules."),
        {**_answer(N_("The record."), _ref("Record")), **_problems(404)},
        tag="Archive", parameters=[MATCH_ID], operation_id="record_json")},
    "/matches/{match_id}/ply": {"get": _operation(
        N_("How far a match has come, for a waiting page: answers 304 to a matching "
           "If-None-Match."),
        {**_answer(N_("The match's ply, status and version."), _ref("Ply")),
         "304": {"description": N_("Nothing changed since the ETag you sent.")},
         **_problems(404)},
        tag="Archive", parameters=[MATCH_ID], operation_id="match_ply")},
    "/play/{token}/ply": {"get": _operation(
        N_("As /matches/{match_id}/ply, asked by the seat's own page: the seat is looking, so "
           "its turn mail waits until it has been away notify_away_seconds."),
        {**_answer(N_("The match's ply, status and version."), _ref("Ply")),
         "304": {"description": N_("Nothing changed since the ETag you sent.")},
         **_problems(404)},
        tag="Seat", parameters=[TOKEN], operation_id="seat_ply")},
    "/api/me": {"get": _operation(
        N_("Who am I: my matches with their links, and my challenges."),
        _answer(N_("The signed-in player."), _ref("Me")), tag="Players", bearer="read",
        operation_id="me")},
    "/api/me/settings": {"put": _operation(
        N_("Change my mail preferences; fields left out keep their value."),
        {**_answer(N_("The preferences now."), _ref("MailSettingsAnswer")),
         **_problems(400, 422)},
        tag="Players", bearer="account", body=_ref("MailSettings"),
        operation_id="mail_settings")},
    "/api/push/key": {"get": _operation(
        N_("The server's VAPID public key, for PushManager.subscribe's applicationServerKey."),
        {**_answer(N_("The key, base64url."), _object(("key",), key=STRING)),
         **_problems(404)},
        tag="Players", operation_id="push_key")},
    "/api/me/push": {
        "post": _operation(
            N_("Send my pushes to this browser: its PushSubscription.toJSON()."),
            {**_answer(N_("Subscribed."), _object(("subscribed",), subscribed=BOOLEAN), "201"),
             **_problems(400)},
            tag="Players", bearer="account", body=_ref("PushSubscription"),
            operation_id="push_subscribe"),
        "delete": _operation(
            N_("Stop sending my pushes to the browser with this endpoint."),
            {**_answer(N_("Unsubscribed."), _object(("subscribed",), subscribed=BOOLEAN)),
             **_problems(400, 404)},
            tag="Players", bearer="account",
            body=_ref("PushEndpoint"), operation_id="push_unsubscribe")},
    "/api/challenges": {"post": _operation(
        N_("Challenge players by address; the match starts when all accept."),
        {**_answer(N_("The new challenge."), _ref("Challenge"), "201"),
         **_problems(400, 409, 422, 429)},
        tag="Challenges", bearer="play", body=_ref("ChallengeRequest"),
        operation_id="create_challenge")},
    "/api/challenges/computer": {"post": _operation(
        N_("Play the computer: a match starts at once, every other seat the computer's "
           "(\"Computer (level N)\", unrated, no clock); it moves within seconds of yours."),
        {**_answer(N_("The match and your seat's link."), _ref("ComputerMatch"), "201"),
         **_problems(400, 403, 409, 422)},
        tag="Challenges", bearer="play", body=_ref("ComputerRequest"),
        operation_id="play_computer")},
    "/api/challenges/{challenge_id}": {"get": _operation(
        N_("A challenge I sent or received."),
        {**_answer(N_("The challenge."), _ref("Challenge")), **_problems(403, 404)},
        tag="Challenges", bearer="read", parameters=[CHALLENGE_ID],
        operation_id="show_challenge")},
    "/api/challenges/{challenge_id}/accept": _challenge_action(
        "accept", N_("Accept a challenge I received.")),
    "/api/challenges/{challenge_id}/decline": _challenge_action(
        "decline", N_("Decline a challenge I received.")),
    "/api/challenges/{challenge_id}/cancel": _challenge_action(
        "cancel", N_("Cancel a challenge I sent.")),
    "/api/matches/{match_id}/analysis": {
        "get": _operation(
            N_("The computer's analysis of a finished match: per ply its best move, the "
               "mover's win estimate after it and after the move played, mistakes marked "
               "(status \"none\" until someone asks)."),
            {**_answer(N_("The analysis."), _ref("MatchAnalysis")), **_problems(404)},
            tag="Archive", parameters=[MATCH_ID], operation_id="match_analysis"),
        "post": _operation(
            N_("Ask the computer (level 4) to analyse a finished match; the worker computes "
               "it once, whoever asks. Never for a live match."),
            {**_answer(N_("Queued (or already being made)."), _ref("MatchAnalysis"), "202"),
             **_answer(N_("Already done."), _ref("MatchAnalysis")), **_problems(404, 409)},
            tag="Archive", parameters=[MATCH_ID], operation_id="ask_match_analysis")},
    "/api/matches/{match_id}/rematch": {"post": _operation(
        N_("Challenge the same players to the same game again."),
        {**_answer(N_("The new challenge."), _ref("Challenge"), "201"),
         **_problems(403, 404, 409, 429)},
        tag="Challenges", bearer="play", parameters=[MATCH_ID], operation_id="rematch")},
    "/api/seeks": {
        "get": _operation(N_("The open seeks."),
                          _answer(N_("Every open seek."),
                                  _object(("seeks",), seeks={"type": "array",
                                                             "items": _ref("Seek")})),
                          tag="Seeks", bearer="read", operation_id="list_seeks"),
        "post": _operation(N_("Offer a game anyone signed in may join."),
                           {**_answer(N_("The new seek."), _ref("Seek"), "201"),
                            **_problems(400, 409, 422, 429)},
                           tag="Seeks", bearer="play", body=_ref("SeekRequest"),
                           operation_id="create_seek"),
    },
    "/api/ratings/{game}": {"get": _operation(
        N_("A game's leaderboard: players with at least 10 rated games who played within the "
           "last year, best first, a keyset page at a time."),
        {**_answer(N_("A page of the leaderboard and the cursor of the next."),
                   _ref("Leaderboard")), **_problems(400, 404, 422)},
        tag="Ratings", operation_id="leaderboard",
        parameters=[{"name": "game", "in": "path", "required": True, "schema": GAME,
                     "description": N_("The game's slug.")},
                    _query_parameter("cursor", N_("From the previous page's “next”."), STRING)])},
    "/api/players/{name}": {"get": _operation(
        N_("A player's public record and their rating in each game they have played rated."),
        {**_answer(N_("The player."), _ref("PublicPlayer")), **_problems(404)},
        tag="Ratings", operation_id="player",
        parameters=[_path_parameter("name", N_("The player's display name (any case)."))])},
    "/api/tournaments": {
        "get": _operation(
            N_("Tournaments, newest first (each without its rounds and standings)."),
            {**_answer(N_("The tournaments."), _object(("tournaments",), tournaments={
                "type": "array", "items": _ref("Tournament")})), **_problems(400)},
            tag="Tournaments", operation_id="list_tournaments",
            parameters=[_query_parameter("status", N_("open, running, finished or cancelled "
                                            "(empty: any)."),
                                         {"type": "string", "enum": ["", "open", "running",
                                                                     "finished",
                                                                     "cancelled"]})]),
        "post": _operation(N_("Organise a tournament; players join it until it starts."),
                           {**_answer(N_("The new tournament."), _ref("Tournament"), "201"),
                            **_problems(400, 409, 422)},
                           tag="Tournaments", bearer="play", body=_ref("TournamentRequest"),
                           operation_id="create_tournament"),
    },
    "/api/tournaments/{tournament_id}": {"get": _operation(
        N_("A tournament: its players, its rounds' pairings and results, its standings."),
        {**_answer(N_("The tournament."), _ref("Tournament")), **_problems(404)},
        tag="Tournaments", parameters=[TOURNAMENT_ID], operation_id="show_tournament")},
    **{f"/api/tournaments/{{tournament_id}}/{verb}": {"post": _operation(
        summary, {**_answer(N_("The tournament as it is now."), _ref("Tournament")),
                  **_problems(403, 404, 409)},
        tag="Tournaments", bearer="play", parameters=[TOURNAMENT_ID],
        operation_id=f"tournament_{verb}")}
       for verb, summary in (
           ("join", N_("Join an open tournament.")),
           ("leave", N_("Leave a tournament before it starts.")),
           ("start", N_("Start my tournament now, with the players it has (organiser).")),
           ("withdraw", N_("Withdraw from a running tournament: my matches in play are "
                           "forfeited.")))},
    "/api/leagues": {
        "get": _operation(N_("Leagues, newest first (each without its seasons)."),
                          {**_answer(N_("The leagues."), _object(("leagues",), leagues={
                              "type": "array", "items": _ref("League")}))},
                          tag="Leagues", operation_id="list_leagues"),
        "post": _operation(N_("Organise a league: seasons of divisions, the best go up and "
                              "the last go down."),
                           {**_answer(N_("The new league."), _ref("League"), "201"),
                            **_problems(400, 409, 422)},
                           tag="Leagues", bearer="play", body=_ref("LeagueRequest"),
                           operation_id="create_league"),
    },
    "/api/leagues/{league_id}": {"get": _operation(
        N_("A league: its members and every season's divisions, standings and matches."),
        {**_answer(N_("The league."), _ref("League")), **_problems(404)},
        tag="Leagues", parameters=[LEAGUE_ID], operation_id="show_league")},
    **{f"/api/leagues/{{league_id}}/{verb}": {"post": _operation(
        summary, {**_answer(N_("The league as it is now."), _ref("League")),
                  **_problems(404, 409)},
        tag="Leagues", bearer="play", parameters=[LEAGUE_ID], operation_id=f"league_{verb}")}
       for verb, summary in (
           ("join", N_("Join a league: the next season seats me.")),
           ("leave", N_("Leave a league after the season in play.")))},
    "/api/ladders": {
        "get": _operation(N_("Ladders, newest first (each without its places)."),
                          {**_answer(N_("The ladders."), _object(("ladders",), ladders={
                              "type": "array", "items": _ref("Ladder")}))},
                          tag="Leagues", operation_id="list_ladders"),
        "post": _operation(N_("Organise a ladder: players hold places and challenge upwards."),
                           {**_answer(N_("The new ladder."), _ref("Ladder"), "201"),
                            **_problems(400, 409, 422)},
                           tag="Leagues", bearer="play", body=_ref("LadderRequest"),
                           operation_id="create_ladder"),
    },
    "/api/ladders/{ladder_id}": {"get": _operation(
        N_("A ladder: its places and its latest challenges."),
        {**_answer(N_("The ladder."), _ref("Ladder")), **_problems(404)},
        tag="Leagues", parameters=[LADDER_ID], operation_id="show_ladder")},
    **{f"/api/ladders/{{ladder_id}}/{verb}": {"post": _operation(
        summary, {**_answer(N_("The ladder as it is now."), _ref("Ladder")),
                  **_problems(404, 409)},
        tag="Leagues", bearer="play", parameters=[LADDER_ID], operation_id=f"ladder_{verb}")}
       for verb, summary in (
           ("join", N_("Join a ladder at the bottom, or come back from hold.")),
           ("leave", N_("Leave a ladder.")))},
    "/api/ladders/{ladder_id}/challenge": {"post": _operation(
        N_("Challenge a player above me, by place or by name."),
        {**_answer(N_("The ladder as it is now, and the challenge's number."), _ref("Ladder"),
                   "201"), **_problems(400, 404, 409, 422)},
        tag="Leagues", bearer="play", parameters=[LADDER_ID], operation_id="ladder_challenge",
        body=_ref("LadderChallengeRequest"))},
    "/api/ladders/{ladder_id}/accept": {"post": _operation(
        N_("Accept a challenge made to me: its game starts."),
        {**_answer(N_("The ladder as it is now, and the new match's number."),
                   _ref("Ladder")), **_problems(400, 404, 409)},
        tag="Leagues", bearer="play", parameters=[LADDER_ID], operation_id="ladder_accept",
        body=_ref("LadderAcceptRequest"))},
    "/api/seeks/{seek_id}/join": {"post": _operation(
        N_("Take a seat in a seek; the match starts when it is full."),
        {**_answer(N_("The seek as it is now."), _ref("Seek")), **_problems(404, 409)},
        tag="Seeks", bearer="play", parameters=[SEEK_ID], operation_id="join_seek")},
}


def _link(operation_id: str, **parameters: str) -> dict[str, Any]:
    return {"operationId": operation_id, "parameters": parameters}


# Where an answer's fields feed the next request (OpenAPI links): clients and schemathesis's
# stateful phase follow them from a new challenge to its answers, from a seek to joining it,
# and from /api/me to the seats and matches it lists.
LINKS: dict[tuple[str, str, str], dict[str, Any]] = {
    ("/api/challenges", "post", "201"): {
        name: _link(op, challenge_id="$response.body#/id")
        for name, op in (("ShowChallenge", "show_challenge"), ("Accept", "challenge_accept"),
                         ("Decline", "challenge_decline"), ("Cancel", "challenge_cancel"))},
    ("/api/seeks", "post", "201"): {"Join": _link("join_seek", seek_id="$response.body#/id")},
    ("/api/tournaments", "post", "201"): {
        name: _link(op, tournament_id="$response.body#/id")
        for name, op in (("ShowTournament", "show_tournament"), ("Join", "tournament_join"),
                         ("Leave", "tournament_leave"), ("Start", "tournament_start"))},
    ("/api/me", "get", "200"): {
        **{name: _link(op, token="$response.body#/matches/0/token")
           for name, op in (("SeatState", "seat_state"), ("SeatMove", "seat_move"),
                            ("Resign", "seat_resign"), ("OfferDraw", "seat_draw_yes"),
                            ("DeclineDraw", "seat_draw_no"), ("Abort", "seat_abort"),
                            ("ClaimVictory", "seat_claim_victory"))},
        **{name: _link(op, match_id="$response.body#/matches/0/id")
           for name, op in (("MatchRecord", "match_record"), ("RecordJson", "record_json"),
                            ("MatchPly", "match_ply"), ("Rematch", "rematch"))}},
}
for (_path, _method, _status), _links in LINKS.items():
    PATHS[_path][_method]["responses"][_status]["links"] = _links


def document(base_url: str) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "pbem", "version": "1",
                 "description": N_("Play by email: a seat plays by its private link token; "
                                   "a player acts with a personal API token (Bearer). Errors "
                                   "are problem+json (RFC 9457).")},
        "servers": [{"url": base_url}],
        # The tags' names head the docs page's sections (shown in the reader's language).
        "tags": [{"name": name} for name in
                 (N_("Seat"), N_("Archive"), N_("Players"), N_("Challenges"), N_("Seeks"),
                  N_("Ratings"), N_("Tournaments"), N_("Leagues"))],
        "paths": PATHS,
        "components": {"schemas": SCHEMAS, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer",
                       "description": N_("A personal API token from your settings page, with "
                                         "scopes: `read` (GET), `play` (challenges, seeks, "
                                         "tournaments, rematches, and the seat links in "
                                         "/api/me), `account` (settings).")}}},
    }
