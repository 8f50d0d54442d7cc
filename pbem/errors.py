"""Errors raised by the service layer. Their messages are safe to show to a player or admin.

Each carries the HTTP status the web layer answers with, so views stay thin.
"""

from __future__ import annotations


class PbemError(Exception):
    """Base class: `str(error)` is a message fit for a player."""

    status = 400


class ConfigError(PbemError):
    """The configuration is missing or wrong; the message says how to fix it."""


class NotFoundError(PbemError):
    status = 404


class ConflictError(PbemError):
    """The match moved on since the player looked (stale or duplicate submission)."""

    status = 409


class MatchNotLiveError(ConflictError):
    """The match is over or aborted: no more moves."""


class NotYourTurnError(ConflictError):
    """The seat does not owe a move now."""


class InvalidRequestError(PbemError):
    """The request itself is malformed (missing field, wrong type)."""

    status = 400


class UnprocessableError(InvalidRequestError):
    """Well-formed, but nothing this server can act on: a cursor it never gave out, a move
    number the match has not reached, a time zone that does not exist (422, where a malformed
    request is 400)."""

    status = 422


class UnavailableError(PbemError):
    """A service the request needs (the database) is down; trying again later may work."""

    status = 503
