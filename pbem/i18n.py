"""The player's language: which one is in force, and the translated words for it.

Every sentence a person reads goes through `_` (or `ngettext`) here, on pages, in mails, in
the answers to replies, in the rules' refusals. The language in force is a context variable:
the web layer sets it for each request (the player's setting, else the `pbem_lang` cookie,
else `Accept-Language`: see `pbem.web.site.language`), and the mail composer sets it for each
recipient with `with language(code):`. Nothing here reads a request, a database or a clock, so
the rules and the services can call it and stay pure of the web.

The catalogs are gettext files under `pbem/translations/<code>/LC_MESSAGES/`, made and
compiled with `pybabel` (docs/TRANSLATING.md); English is the source text, so it has none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from functools import cache, lru_cache, wraps
from gettext import NullTranslations
from pathlib import Path
from typing import Any, ParamSpec, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel import Locale
from babel.dates import format_date as babel_format_date
from babel.dates import format_datetime as babel_format_datetime
from babel.dates import format_time as babel_format_time
from babel.numbers import format_decimal
from babel.support import LazyProxy, Translations

P = ParamSpec("P")
R = TypeVar("R")
CATALOGS = Path(__file__).resolve().parent / "translations"
DEFAULT = "en"
# The languages pbem speaks, each named in its own words (what the language switch shows).
LANGUAGES: dict[str, str] = {"en": "English", "de": "Deutsch", "ja": "日本語"}

# The language in force: a code, or a function that decides it on first use (a page that
# never translates a word never reads the signed-in player for it).
_language: ContextVar[str | Callable[[], str]] = ContextVar("pbem_language", default=DEFAULT)
# The reader's time zone (an IANA name) for showing times, or a function that finds it; None: UTC.
_zone: ContextVar[str | Callable[[], str | None] | None] = ContextVar("pbem_zone", default=None)


def current() -> str:
    """The code of the language in force ("en", "de", "ja")."""
    chosen = _language.get()
    if callable(chosen):
        chosen = chosen()
        _language.set(chosen)
    return chosen


def decide_later(decide: Callable[[], str],
                 find_zone: Callable[[], str | None]) -> tuple[Any, Any]:
    """Let `decide` choose the language the first time a word is translated, and `find_zone`
    the time zone the first time a time is shown (a request sets these); returns the tokens
    `restore` takes."""
    return _language.set(decide), _zone.set(find_zone)


def restore(tokens: tuple[Any, Any]) -> None:
    _language.reset(tokens[0])
    _zone.reset(tokens[1])


@contextmanager
def language(code: str | None, zone: str | None = None) -> Iterator[None]:
    """Speak `code` (a supported code, else English) and show times in `zone` inside the
    block: a mail to a German player is written in German whoever's request made it."""
    token = _language.set(code if code in LANGUAGES else DEFAULT)
    zone_token = _zone.set(zone)
    try:
        yield
    finally:
        _zone.reset(zone_token)
        _language.reset(token)


@cache
def translations(code: str) -> NullTranslations:
    """The compiled catalog of `code`, read once per process; English is the source text."""
    if code == DEFAULT or code not in LANGUAGES:
        return NullTranslations()
    return Translations.load(str(CATALOGS), [code], domain="messages")


def gettext(message: str, **variables: Any) -> str:
    """`message` in the language in force, with `%(name)s` filled from `variables`."""
    text = translations(current()).gettext(message)
    return text % variables if variables else text


_ = gettext


def pgettext(context: str, message: str, **variables: Any) -> str:
    """`message` as meant in `context`, for an English word with two meanings ("Rulings":
    an adjudicator's on a match page, the server's reading of the rules on a rules page)."""
    text = translations(current()).pgettext(context, message)
    return text % variables if variables else text


def ngettext(singular: str, plural: str, n: int, **variables: Any) -> str:
    """The singular or plural form for `n` in the language in force; `%(num)s` is `n`."""
    text = translations(current()).ngettext(singular, plural, n)
    return text % {"num": n, **variables}


def lazy_gettext(message: str, **variables: Any) -> LazyProxy:
    """A translation made when it is read, not when the module is imported: for constants
    (a policy's words, a form's labels) that are read under many languages."""
    return LazyProxy(gettext, message, enable_cache=False, **variables)


def N_(message: str) -> str:
    """Marks `message` for the catalog without translating it: it is translated later, where
    it is shown (`gettext(stored)`), in the reader's language."""
    return message


def NP_(context: str, message: str) -> tuple[str, str]:
    """`N_` with a context: marks `message` as meant in `context` for the catalog and gives
    both back, to be translated where shown with `pgettext(*marked)`."""
    return context, message


def locale() -> Locale:
    return _locale(current())


@cache
def _locale(code: str) -> Locale:
    return Locale.parse(code)


def zone_name() -> str | None:
    name = _zone.get()
    if callable(name):
        name = name()
        _zone.set(name)
    return name


def zone() -> ZoneInfo:
    name = zone_name()
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return ZoneInfo("UTC")


def format_time(moment: datetime | None, form: str = "%Y-%m-%d %H:%M",
                style: str = "short") -> str:
    """A stored (naive UTC) time as the reader reads times: in their zone and their language's
    way ("2026-11-22 20:00 UTC", "22.11.26, 21:00 MEZ", "2026/11/22 21:00 JST"); "—" for none.
    English keeps the `strftime` form it is given; the others use their locale's `style`
    ("short", "medium", "long", "full": "full" names the weekday, as a deadline should)."""
    if moment is None:
        return "—"
    aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    local = aware.astimezone(zone())
    if current() == DEFAULT:
        # The form English pages have always used, which is also ISO 8601's order.
        return f"{local.strftime(form)} {local.tzname()}"
    if style in ("full", "long"):
        # Babel's own full and long forms spell the zone out ("Mitteleuropäische
        # Normalzeit"): the day in that form, then a short time and the zone's abbreviation.
        return (f"{babel_format_date(local.date(), style, locale=locale())} "
                f"{babel_format_time(local, 'short', locale=locale())} {local.tzname()}")
    return (babel_format_datetime(local, style, tzinfo=local.tzinfo, locale=locale())
            + f" {local.tzname()}")


def format_date(moment: datetime | None, form: str = "%Y-%m-%d") -> str:
    """A stored (naive UTC) time's day as the reader writes dates ("2026-11-22",
    "22.11.2026", "2026/11/22"); English keeps the `strftime` form given; "—" for none."""
    if moment is None:
        return "—"
    aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    local = aware.astimezone(zone())
    if current() == DEFAULT:
        return local.strftime(form)
    return babel_format_date(local.date(), "medium", locale=locale())


def format_day(moment: datetime) -> str:
    """A UTC calendar day (a vacation's) as the reader writes days: "Tue 06 Jan 2026",
    "Dienstag, 6. Januar 2026", "2026年1月6日火曜日". Never shifted to the reader's zone: the
    day is the same for everyone."""
    if current() == DEFAULT:
        return moment.strftime("%a %d %b %Y")
    return babel_format_date(moment.date(), "full", locale=locale())


def format_days(starts: datetime, ends: datetime) -> str:
    """A span of whole UTC days from `starts` to `ends` (exclusive, as a vacation is kept) in
    the reader's words, the last day included: "Tue 06 Jan 2026 to Wed 07 Jan 2026"."""
    return gettext("%(first)s to %(last)s", first=format_day(starts),
                   last=format_day(ends - timedelta(seconds=1)))


def per_language(maxsize: int) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Keep what a function says for each set of arguments and each language it is said in
    (at most `maxsize`): for words that a page repeats on every read and that only change with
    their arguments and the reader's language (a clock, a deadline, a script's sentences)."""
    def keep(said: Callable[P, R]) -> Callable[P, R]:
        def said_in(code: str, *args: Any, **kwargs: Any) -> R:
            return said(*args, **kwargs)  # `code` is the language in force, in the key

        in_language: Callable[..., R] = lru_cache(maxsize=maxsize)(said_in)

        @wraps(said)
        def saying(*args: P.args, **kwargs: P.kwargs) -> R:
            return in_language(current(), *args, **kwargs)
        return saying
    return keep


def format_number(number: float | int) -> str:
    """A number as the reader's language writes it (1,234.5 · 1.234,5)."""
    return format_decimal(number, locale=locale())


def format_points(points: float | int) -> str:
    """Points (a score, standings, a tie-break) one way in every language and on every page and
    mail: decimals in the reader's language, at most two places, no trailing zeros (3 ·
    1.5 · 1,5 · 0.33). Never ½: a table of three splits a point in thirds, which a fraction
    sign cannot write, and one number written two ways reads as two numbers."""
    return format_decimal(round(float(points), 2), format="#,##0.##", locale=locale())


def best_match(header_languages: list[tuple[str, float]]) -> str | None:
    """The supported language a browser prefers most (`Accept-Language`, as werkzeug parses
    it, best first), or None if it names none of them."""
    for tag, _quality in header_languages:
        code = tag.split("-")[0].split("_")[0].lower()
        if code in LANGUAGES:
            return code
    return None
