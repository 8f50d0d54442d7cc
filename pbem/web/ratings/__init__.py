"""Ratings pages and API: the leaderboards, how ratings are computed, a player's ratings."""

from __future__ import annotations

from flask import Flask

from pbem.web.ratings import api, pages


def init_app(app: Flask) -> None:
    pages.init_app(app)
    api.init_app(app)
