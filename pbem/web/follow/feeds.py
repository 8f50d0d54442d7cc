"""Atom feeds (RFC 4287): a match's (`/feeds/matches/<id>.atom`) and a competition's
(`/feeds/tournaments/<id>.atom`) for anyone; a player's own (`/feeds/player/<token>/turns.atom`
and `…/games.atom`) behind their secret link, which `/me` shows and replaces.

Each answer carries an ETag (the body's digest) and answers `If-None-Match` with 304; a link
read more than once a minute (a player's link; a public feed by one client) gets 429 with
`Retry-After`, counted in the database so every web process agrees."""

from __future__ import annotations

import hashlib
from datetime import datetime
from urllib.parse import urlsplit
from xml.etree import ElementTree

from flask import Blueprint, Flask, current_app, request
from werkzeug.wrappers import Response

from pbem import i18n
from pbem.core.db.pipeline import ReadAhead
from pbem.core.feeds import links
from pbem.core.feeds.competitions import competition_feed
from pbem.core.feeds.entries import Feed, match_feed
from pbem.core.feeds.player import KINDS, player_feed
from pbem.core.push.channels import choices_ahead
from pbem.errors import NotFoundError
from pbem.i18n import _, current
from pbem.web.accounts.auth import player_required, signed_in_player
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with

bp = Blueprint("feeds", __name__)
ATOM = "http://www.w3.org/2005/Atom"
# The year in every entry's tag URI (RFC 4151): fixed, so ids never change.
TAG_YEAR = 2026


@bp.get("/feeds/matches/<int:match_id>.atom")
def match(match_id: int) -> Response:
    _limit(f"{request.path}|{request.remote_addr}")
    return _answer(match_feed(match_id, now()))


@bp.get("/feeds/<kind>/<int:item_id>.atom")
def competition(kind: str, item_id: int) -> Response:
    feed = competition_feed(kind, item_id)  # 404 before counting: no such feed
    _limit(f"{request.path}|{request.remote_addr}")
    return _answer(feed)


@bp.get("/feeds/player/<token>/<kind>.atom")
def player(token: str, kind: str) -> Response:
    if kind not in KINDS:
        raise NotFoundError(_("There is no such feed."))
    owner = links.player_for_feed(_secret(), token)
    _limit(f"player:{owner.id}:{kind}")  # the link, without keeping its secret part
    # The feed speaks the player's language, whoever's reader fetches it.
    with i18n.language(owner.language, owner.timezone):
        return _answer(player_feed(owner, kind, now()), private=True)


@bp.post("/me/feeds/replace")
@player_required
def replace() -> Response:
    links.replace_links(signed_in_player().id)
    return redirect_with(_("Your feed links were replaced: the old ones no longer work."),
                         "me.home")


def feed_links(player_id: int) -> dict[str, str]:
    """The player's secret feed addresses (for `/me` and `GET /api/me`)."""
    settings = current_app.config["PBEM_SETTINGS"]
    token = links.feed_token(settings.secret_key, player_id)
    return {kind: f"{settings.base_url}/feeds/player/{token}/{kind}.atom" for kind in KINDS}


def follow_ahead(player_id: int) -> list[ReadAhead]:
    """The reads of /me's "Follow your games" (feed links, push controls), to send ahead."""
    return [*links.links_ahead(player_id), *choices_ahead(player_id)]


def atom(feed: Feed, base_url: str, self_url: str, language: str) -> bytes:
    """The feed as an Atom document."""
    site = urlsplit(base_url).hostname or "localhost"
    root = ElementTree.Element("feed", {"xmlns": ATOM, "xml:lang": language})
    _text(root, "id", f"tag:{site},{TAG_YEAR}:{feed.key}")
    _text(root, "title", feed.title)
    _text(root, "updated", _stamp(feed.updated))
    ElementTree.SubElement(root, "link", {"rel": "self", "href": self_url,
                                          "type": "application/atom+xml"})
    ElementTree.SubElement(root, "link", {"rel": "alternate", "type": "text/html",
                                          "href": base_url + feed.path})
    _text(ElementTree.SubElement(root, "author"), "name", "pbem")
    _text(root, "generator", "pbem")
    for entry in feed.entries:
        item = ElementTree.SubElement(root, "entry")
        _text(item, "id", f"tag:{site},{TAG_YEAR}:{entry.key}")
        _text(item, "title", entry.title)
        _text(item, "updated", _stamp(entry.updated))
        ElementTree.SubElement(item, "link", {"rel": "alternate", "type": "text/html",
                                              "href": base_url + entry.path})
        if entry.summary:
            _text(item, "summary", entry.summary)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(
        root, encoding="utf-8", xml_declaration=False)


def _answer(feed: Feed, private: bool = False) -> Response:
    settings = current_app.config["PBEM_SETTINGS"]
    body = atom(feed, settings.base_url, settings.base_url + request.path, current())
    response = Response(body, content_type="application/atom+xml; charset=utf-8")
    response.set_etag(hashlib.sha256(body).hexdigest()[:32])
    response.headers["Cache-Control"] = "private, no-cache" if private else "no-cache"
    return response.make_conditional(request)


def _limit(key: str) -> None:
    links.FEED_LIMIT.reserve([key], now())


def _text(parent: ElementTree.Element, tag: str, text: str) -> None:
    ElementTree.SubElement(parent, tag).text = text


def _stamp(when: datetime) -> str:
    return when.replace(microsecond=0).isoformat() + "Z"


def _secret() -> str:
    return current_app.config["PBEM_SETTINGS"].secret_key


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
