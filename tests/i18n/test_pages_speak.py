"""Every page and mail speaks the reader's language: nothing English is left in it.

The catalog test (test_catalogs.py) proves every *marked* sentence is translated; this one
finds sentences nobody marked. A small world (a match in each game, a finished one, a
challenge, a seek, a tournament, a chat line, an admin) is drawn page by page in Japanese and
German, and the mails it caused are sent in both languages; the visible text and the
attributes people read (title, aria-label, placeholder, alt) must hold no run of English.

English is recognised without a dictionary of German or Japanese:
- in Japanese, three ASCII words in a row (Japanese sentences have none);
- in German, two English-only function words ("the", "your", "with", …) among three words in
  a row: German shares many short words with English, never these.
What legitimately stays English is removed first: notation and commands (`<code>`, `<pre>`,
`<kbd>`, `<samp>`), game and player names, addresses and links, and the language switch.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest

from pbem import i18n
from pbem.core.accounts.admins import create_admin
from pbem.core.accounts.models import Player
from pbem.core.lobby import challenges, seeks
from pbem.core.mailout import chat as chat_mail
from pbem.core.mailout.links import preferences_token
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Seat
from pbem.core.tournaments import service
from pbem.mail.compose import Composer
from tests.conftest import ON_SQLITE, START
from tests.support.players import sign_in
from tests.support.playing import play_randomly
from tests.web.admin.test_queue import PASSWORD, csrf_from

GAMES = {"mimic": 2, "eximo": 2, "frozen-forest": 2, "move-in-synch": 2, "mimic-taking": 3}
PEOPLE = ["ann@example.org", "ben@example.org", "cy@example.org"]
KEPT = ["Mimic Taking", "Move In Synch, In Opposition", "Move In Synch", "In Opposition",
        "Frozen Forest", "EXIMO", "Mimic", "pbem", "Ann", "Ben", "Cy", "English", "Deutsch",
        "OpenAPI", "JSON", "API", "CSV", "SVG", "SMTP", "IMAP", "UTC", "Prometheus",
        "Plackett-Luce", "openskill", "MCTS", "UCT", "ISMCTS", "PGN", "iCalendar", "ICS",
        "Bearer", "Accept-Language", "Europe/Paris", "Asia/Tokyo", "Néstor Romeral Andrés",
        "to-move",
        # The test-only games' own words (tests/support/games.py): not pbem's to translate.
        "cards dealt to each player", "counters on the pile at the start"]
ENGLISH_ONLY = frozenset([
    "the", "your", "you", "with", "this", "that", "these", "those", "which", "what", "who",
    "whose", "their", "they", "them", "there", "here", "would", "should", "could", "have", "has",
    "been", "being", "from", "into", "only", "every", "each", "than", "then", "when", "where",
    "while", "because", "please", "already", "yet", "none", "nobody", "anyone", "someone",
    "about", "after", "before", "again", "against", "above", "below", "between", "through",
    "during", "until", "without", "of", "to", "and", "for", "on", "is", "are", "be", "by", "or",
    "at", "it", "its", "not", "no", "my", "me", "we", "our", "us", "if", "all", "any", "can",
    "just", "move", "moves", "game", "games", "player", "players", "turn", "link", "page",
    "email", "reply", "send", "sign", "new", "back", "show", "see", "more", "yes", "one"])
_SKIP_BLOCKS = re.compile(
    r"<(script|style|code|pre|kbd|samp|textarea|datalist|select)\b.*?</\1>", re.S | re.I)
_ATTRIBUTES = re.compile(r'\s(?:title|aria-label|placeholder|alt)="([^"]*)"', re.I)
_LINKS = re.compile(r"https?://\S+|\S+@\S+|/[\w./?=&{}-]+")
_SWITCH = re.compile(r'<form class="languages".*?</form>', re.S)


def readable(page: str) -> str:
    """What a person reads on a page: its text and the attributes shown or spoken."""
    page = _SWITCH.sub(" ", page)
    attributes = " | ".join(_ATTRIBUTES.findall(page))
    page = _SKIP_BLOCKS.sub(" | ", page)
    text = re.sub(r"<[^>]+>", " | ", page)
    return html.unescape(f"{text} | {attributes}")


def english_runs(text: str, code: str) -> list[str]:
    for kept in KEPT:
        text = text.replace(kept, " | ")
    text = _LINKS.sub(" | ", text)
    found = []
    for piece in re.split(r"[|\n]", text):
        words = re.findall(r"[A-Za-z][A-Za-z']*|\S", piece)
        for start in range(len(words) - 2):
            window = words[start:start + 3]
            if code == "ja":
                english = all(re.fullmatch(r"[A-Za-z][A-Za-z']+", w) for w in window)
            else:
                english = sum(w.lower() in ENGLISH_ONLY for w in window) >= 2
            if english:
                found.append(" ".join(piece.split())[:100])
                break
    return found


@pytest.fixture
def world(settings, client, worker, smtp) -> Iterator[dict[str, object]]:
    """A match in each game (some moves played), a finished match, a seek, a chat line,
    Ann signed in on `client`."""
    tokens, ids = {}, {}
    for game, seats in GAMES.items():
        created = create_match(game, PEOPLE[:seats], {}, settings.secret_key, START)
        play_randomly(created.match.id, 3, START, max_plies=4)
        tokens[game], ids[game] = created.tokens[0], created.match.id
    finished = create_match("mimic", PEOPLE[:2], {}, settings.secret_key, START)
    play_randomly(finished.match.id, 5, START)
    ids["finished"] = finished.match.id
    Player.update(name="Ann").where(Player.email == PEOPLE[0]).execute()
    Player.update(name="Ben").where(Player.email == PEOPLE[1]).execute()
    ann = Player.get(Player.email == PEOPLE[0])
    ben = Player.get(Player.email == PEOPLE[1])
    seeks.create_seek(settings, ben, "mimic", {}, "3d", 2, START)
    challenges.create_challenge(settings, ben, challenges.ChallengeRequest(
        game="eximo", opponents=[PEOPLE[0]]), START)
    tournament = service.create_tournament(ann, {
        "name": "Winter cup", "game": "mimic", "format": "swiss", "min_players": 2,
        "max_players": 16}, START)
    service.join(tournament.id, ben, START)
    seat = Seat.get(Seat.match == ids["mimic"], Seat.seat == 1)
    chat_mail.post_and_mail(seat, "good luck", START)
    sign_in(client, PEOPLE[0], worker, smtp)
    client.get("/me")  # shows (and so clears) the sign-in's flash, said in the browser's words
    worker.run_once()
    yield {"tokens": tokens, "ids": ids, "ann": ann, "tournament": tournament.id,
           "prefs": preferences_token(settings.secret_key, ann.id)}


def _pages(world: dict[str, object]) -> list[str]:
    tokens, ids = world["tokens"], world["ids"]
    pages = ["/games", "/matches", "/seeks", "/tournaments", "/tournaments/new", "/computer",
             "/ratings", "/ratings/mimic", "/players/Ann", "/signin", "/me", "/me/settings",
             "/challenges/new", f"/mail/preferences/{world['prefs']}", "/no/such/page"]
    pages += [f"/games/{game}" for game in GAMES]
    pages += [f"/play/{token}" for token in tokens.values()]  # type: ignore[union-attr]
    pages += [f"/matches/{match}" for match in ids.values()]  # type: ignore[union-attr]
    pages += [f"/tournaments/{world['tournament']}", "/challenges/1"]
    return pages


ADMIN_PAGES = ["/admin", "/admin/matches", "/admin/players", "/admin/mail", "/admin/inbound",
               "/admin/audit", "/admin/reports", "/admin/matches/1", "/admin/players/1"]


@ON_SQLITE
@pytest.mark.parametrize("code", ["ja", "de"])
def test_no_page_has_english_left(code: str, world, client, app) -> None:
    leftovers = {}
    for path in _pages(world):
        page = client.get(path, headers={"Accept-Language": code})
        client.delete_cookie("pbem_lang")
        body = page.get_data(as_text=True)
        assert f'<html lang="{code}"' in body or page.status_code >= 400, path
        # A signed-in player's setting would outrank the header: Ann has none.
        runs = english_runs(readable(body), code)
        if runs:
            leftovers[path] = runs[:6]
    admin = app.test_client()
    create_admin("ref@club.org", PASSWORD, START, role="admin")
    token = csrf_from(admin.get("/admin/login").data)
    admin.post("/admin/login", data={"email": "ref@club.org", "password": PASSWORD,
                                     "csrf_token": token})
    for path in ["/admin/login", *ADMIN_PAGES]:
        body = admin.get(path, headers={"Accept-Language": code}).get_data(as_text=True)
        runs = english_runs(readable(body), code)
        if runs:
            leftovers[path] = runs[:6]
    assert not leftovers, "English left on pages:\n" + "\n".join(
        f"{path}: {runs}" for path, runs in leftovers.items())


@ON_SQLITE
@pytest.mark.parametrize("code", ["ja", "de"])
def test_no_mail_has_english_left(code: str, world, settings) -> None:
    composer = Composer(settings)
    Player.update(language=code).execute()
    leftovers = {}
    for message in OutboxMessage.select().order_by(OutboxMessage.id):
        rendered = composer.render(message)
        for part, text in (("subject", rendered.subject), ("text", rendered.text),
                           ("html", readable(rendered.html))):
            # The quoted reply commands and the notation stay English in mail text too.
            text = re.sub(r"^\s*(>|\w+ +[a-z]\d).*$", " ", text, flags=re.M)
            runs = english_runs(text, code)
            if runs:
                leftovers[f"{message.template}/{part}"] = runs[:4]
    assert not leftovers, "English left in mails:\n" + "\n".join(
        f"{kind}: {runs}" for kind, runs in leftovers.items())


def test_the_detector_finds_english() -> None:
    assert english_runs("Your move: pick a piece on the board", "ja")
    assert english_runs("Du bist am Zug | it is your turn now", "de")
    assert not english_runs("Du bist am Zug, Ann: wähle einen Stein auf dem Brett", "de")
    assert not english_runs("あなたの手番です。Mimic の盤", "ja")
    with i18n.language("de"):
        assert i18n.current() == "de"
