"""Time controls and deadlines: pure arithmetic on naive UTC datetimes.

Two kinds of clock, written the way correspondence players write them:
- a fixed time per move: `3d`, `36h`, `90m`, `45s` (seconds exist for tests and demos);
- the capped Fischer clock: `7d+1d/14d` is a bank of 7 days, plus 1 day for every move made,
  never above 14 days.

A seat's clock runs only while it owes a move, and stops while its player is on vacation, so
a deadline is "the moment the seat's allowance runs out, counting only running time".

Every time in a clock is at most a year (`MAX_SPAN`): longer clocks are refused when a match is
made, and a match stored before that bound reads its clock clamped to it, so no deadline ever
falls off the calendar.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_skeleton
from babel.dates import format_time as babel_format_time

from pbem import i18n
from pbem.errors import InvalidRequestError, UnprocessableError
from pbem.i18n import _, ngettext

_UNITS = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}
_SPAN = r"([0-9]{1,9})\s*([dhms])"
_FIXED = re.compile(rf"{_SPAN}")
_FISCHER = re.compile(rf"{_SPAN}\s*\+\s*{_SPAN}\s*/\s*{_SPAN}")
# No span in a time control (bank, increment, cap) may exceed a year: longer is no clock at all,
# and a seat's allowance in seconds must fit every database's 32-bit integer column.
MAX_SPAN = timedelta(days=365)
REMINDER_BEFORE = timedelta(hours=24)
SHORT_CLOCK = timedelta(days=2)

Interval = tuple[datetime, datetime]


@dataclass(frozen=True)
class TimeControl:
    """`bank` is the first allowance; a fixed clock has no increment and resets every move."""

    bank: timedelta
    increment: timedelta | None = None
    cap: timedelta | None = None

    @property
    def is_fischer(self) -> bool:
        return self.increment is not None

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read a clock someone typed; refuse it clearly if any of its times is above a year."""
        control = cls._read(text)
        if max(span for span in (control.bank, control.increment, control.cap) if span) > MAX_SPAN:
            raise UnprocessableError(
                _("%(clock)r: a clock's times (bank, increment and cap) are at most %(days)s "
                  "days each", clock=text.strip(), days=MAX_SPAN.days))
        return control

    @classmethod
    def of_match(cls, text: str) -> TimeControl:
        """A match's stored clock. One stored before times were bounded is clamped to the bound,
        so its deadlines stay computable (never an overflow on every later move)."""
        control = cls._read(text)
        def clamp(span: timedelta | None) -> timedelta | None:
            return None if span is None else min(span, MAX_SPAN)

        return cls(min(control.bank, MAX_SPAN), clamp(control.increment), clamp(control.cap))

    @classmethod
    def _read(cls, text: str) -> TimeControl:
        spec = text.strip().lower()
        if fixed := _FIXED.fullmatch(spec):
            return cls(_span(fixed.group(1), fixed.group(2)))
        if fischer := _FISCHER.fullmatch(spec):
            bank, plus, cap = (_span(fischer.group(i), fischer.group(i + 1)) for i in (1, 3, 5))
            if cap < bank:
                raise UnprocessableError(_("in %(clock)r the cap is below the starting bank",
                                           clock=text))
            return cls(bank, plus, cap)
        raise InvalidRequestError(
            _("%(clock)r is not a time control: write a time per move like 3d, 36h, 90m or 45s, "
              "or a capped Fischer clock like 7d+1d/14d", clock=text))

    def __str__(self) -> str:
        if self.is_fischer:
            return f"{_short(self.bank)}+{_short(self.increment)}/{_short(self.cap)}"
        return _short(self.bank)

    def describe(self) -> str:
        if self.is_fischer:
            return _("%(bank)s to start, plus %(increment)s per move, at most %(cap)s",
                     bank=_words(self.bank), increment=_words(self.increment),
                     cap=_words(self.cap))
        return _("%(bank)s per move", bank=_words(self.bank))

    def allowance_after_move(self, allowance: timedelta, used: timedelta) -> timedelta:
        """What the seat has for its next move, after using `used` of `allowance` on this one."""
        if not self.is_fischer:
            return self.bank
        if self.increment is None or self.cap is None:
            raise ValueError(f"{self} is a Fischer clock without an increment or a cap")
        return min(max(allowance - used, timedelta(0)) + self.increment, self.cap)


def deadline(start: datetime, allowance: timedelta, pauses: Iterable[Interval]) -> datetime:
    """When `allowance` of running time, counted from `start`, runs out; pauses stop the clock."""
    moment, left = start, min(allowance, MAX_SPAN)
    for pause_start, pause_end in sorted(pauses):
        if pause_end <= moment:
            continue
        if pause_start >= moment + left:
            break
        left -= max(pause_start - moment, timedelta(0))
        moment = max(moment, pause_end)
    return moment + left


def running_time(start: datetime, end: datetime, pauses: Iterable[Interval]) -> timedelta:
    """How much of [start, end) the clock was running."""
    total = end - start
    for pause_start, pause_end in pauses:
        overlap = min(end, pause_end) - max(start, pause_start)
        if overlap > timedelta(0):
            total -= overlap
    return max(total, timedelta(0))


def reminder_lead(allowance: timedelta) -> timedelta:
    """Remind when 24 hours remain; on a short clock (under two days for the move), when a
    fifth of the allowance remains, so the reminder never comes almost at once."""
    return REMINDER_BEFORE if allowance >= SHORT_CLOCK else allowance / 5


def describe_left(left: timedelta) -> str:
    """Time left, as players read it: "3 days 2 hours left", "no time left"."""
    if left <= timedelta(0):
        return _("no time left")
    return _left_words(_shown_units(left))


def describe_span(span: timedelta) -> str:
    """A length of time in words, at most two units: "3 days 2 hours", "no time" (an
    allowance; `describe_left` without its "left", in every language)."""
    if span <= timedelta(0):
        return _("no time")
    return _span_words(_shown_units(span))


def _shown_units(span: timedelta) -> tuple[tuple[int, str], ...]:
    """The units a span is said in: its first two that are not zero, of days, hours and
    minutes, and seconds under an hour ((3, "d"), (2, "h"))."""
    seconds = int(span.total_seconds())
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, seconds = divmod(rest, 60)
    parts = [(days, "d"), (hours, "h"), (minutes, "m")]
    if not days and not hours:
        parts.append((seconds, "s"))
    return tuple((n, unit) for n, unit in parts if n)[:2]


# A span's words follow from the units shown and the language: every clock on every page says
# one, so each is worked out once (a few thousand: a day's worth of minutes, say).
@i18n.per_language(4096)
def _span_words(shown: tuple[tuple[int, str], ...]) -> str:
    return " ".join(_unit_words(n, unit) for n, unit in shown) if shown else _("no time")


@i18n.per_language(4096)
def _left_words(shown: tuple[tuple[int, str], ...]) -> str:
    return _("%(span)s left", span=_span_words(shown))


def _span(number: str, unit: str) -> timedelta:
    seconds = int(number) * _UNITS[unit]  # at most 9 digits: `_SPAN` says so
    if seconds <= 0:
        raise UnprocessableError(_("a time control needs a time above zero"))
    return timedelta(seconds=seconds)


def _short(span: timedelta | None) -> str:
    seconds = int(span.total_seconds()) if span else 0
    for unit, size in _UNITS.items():
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _words(span: timedelta | None) -> str:
    text = _short(span)
    return _unit_words(int(text[:-1]), text[-1])


def _unit_words(number: int, unit: str) -> str:
    """`3 days`, `1 hour`: a number of one unit (d, h, m, s) in the reader's language."""
    if unit == "d":
        return ngettext("%(num)s day", "%(num)s days", number)
    if unit == "h":
        return ngettext("%(num)s hour", "%(num)s hours", number)
    if unit == "m":
        return ngettext("%(num)s minute", "%(num)s minutes", number)
    return ngettext("%(num)s second", "%(num)s seconds", number)


def _moment(moment: datetime, form: str, zone_words: str) -> str:
    """A deadline's moment as the reader's language writes a date (English keeps its form)."""
    if i18n.current() == i18n.DEFAULT:
        return moment.strftime(form)
    locale = i18n.locale()
    return (f"{format_skeleton('yMMMEd', moment, locale=locale)}, "
            f"{babel_format_time(moment, 'short', locale=locale)} {zone_words}")


@i18n.per_language(256)
def describe_match_clock(time_control: str) -> str:
    """A match's stored clock in words ("3 days per move"), in the reader's language: worked
    out once per clock and language, as every seat's page and record says it."""
    return TimeControl.of_match(time_control).describe()


@i18n.per_language(1024)
def describe_allowance(seconds: int) -> str:
    """A seat's allowance for a move in words ("3 days"), in the reader's language; the few
    allowances a server's clocks give are each worked out once per language."""
    return describe_span(timedelta(seconds=seconds))


def deadline_info(due: datetime | None, time_control: str, timezone: str | None,
                  now: datetime) -> dict[str, str] | None:
    """A deadline as players read it: absolute in UTC and their own zone, and time left."""
    if due is None:
        return None
    fixed = _deadline_words(due, time_control, timezone)
    # The same keys in the same order as ever: "left" after "utc".
    return {"at": fixed["at"], "utc": fixed["utc"], "left": describe_left(due - now),
            **{name: fixed[name] for name in ("time_control", "local") if name in fixed}}


@i18n.per_language(1024)
def _deadline_words(due: datetime, time_control: str, timezone: str | None) -> dict[str, str]:
    """The parts of `deadline_info` that stay until the deadline moves, in the reader's
    language: a seat's page shows the same deadline on every read until a move."""
    info = {
        "at": due.isoformat() + "Z",
        "utc": _moment(due, "%a %d %b %Y, %H:%M UTC", "UTC"),
        "time_control": describe_match_clock(time_control),
    }
    if timezone:
        try:
            local = due.replace(tzinfo=UTC).astimezone(ZoneInfo(timezone))
        except (ZoneInfoNotFoundError, ValueError):
            return info
        info["local"] = _moment(local, f"%a %d %b %Y, %H:%M ({timezone})", f"({timezone})")
    return info
