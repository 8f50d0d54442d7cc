"""Template helpers shared by the web pages and the mail composer: register them on any Jinja
environment with `register(env)`. The boards (SVG for pages, HTML tables for email) are drawn
by each game's `board.py` in the shared frame of `pbem.games.boards`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from datetime import datetime
from typing import Any

import jinja2
from jinja2.nodes import EvalContext
from markupsafe import Markup, escape

from pbem import i18n
from pbem.bots import strength
from pbem.bots.levels import shown_name
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.games import DESCRIPTIONS
from pbem.games.boards import grid, table
from pbem.latest import Latest


def options(values: Iterable[str]) -> Markup:
    """`<option>`s of a list whose label is its value (the legal moves: up to hundreds of
    them, built here rather than by a template loop)."""
    return Markup("".join(f'<option value="{text}">{text}</option>'
                          for text in map(escape, values)))


def option_values(chosen: Mapping[str, Any]) -> str:
    """A match's options as a player would type them back: `face_up=on, size=8` (on/off, as
    the rules pages and the option parser word them, never Python's True/False)."""
    return ", ".join(f"{name}={_option_word(value)}" for name, value in chosen.items())


def move_rows(moves: Sequence[Mapping[str, Any]], ply_base: str | None, shown: int | None,
              keep_page: str = "") -> Markup:
    """The `<li>` of each listed move (records.moves_for): who, the notation (or that it is
    hidden), what it caused, when; a link to the position after it when `ply_base` is given,
    and `shown` marked as the current one. Built here: a template loop cost a fifth of a
    play page.

    A page of moves is kept per match version (`records.match_record`), so the same list
    comes back on every read until the next move: its rows are made once per list, address
    and language. The list is held with them, so its id cannot pass to another list."""
    key = (id(moves), ply_base, shown, keep_page, i18n.current())
    found = _ROWS.get(key)
    if found is not None and found[0] is moves:
        return found[1]
    made = _move_rows(moves, ply_base, shown, keep_page)
    _ROWS.keep(key, (moves, made))
    return made


# A page of rows is up to about 10 KB.
_ROWS: Latest[tuple[Sequence[Mapping[str, Any]], Markup]] = Latest(32)


def _move_rows(moves: Sequence[Mapping[str, Any]], ply_base: str | None, shown: int | None,
               keep_page: str) -> Markup:
    parts = []
    hidden = escape(i18n._("(hidden until revealed)"))
    conditional = escape(i18n._("(conditional)"))
    for move in moves:
        ply = move["ply"]
        current = ' class="current" aria-current="step"' if ply == shown else ""
        what = (f"<code>{escape(move['text'])}</code>" if move["text"] is not None
                else f"<em>{hidden}</em>")
        # One space between who and what, and none at a link's ends: an underline covers it.
        label = f'<span class="by">{escape(move["by"])}</span> {what}'
        if ply_base:
            href = escape(f"{ply_base}?ply={ply}{keep_page}")
            label = f'<a href="{href}">{label}</a>'
        events = news(move)
        if events:
            label += f'\n    <span class="events">{escape("; ".join(events))}</span>'
        if move.get("conditional"):
            label += f'\n    <span class="events tag-conditional">{conditional}</span>'
        if move["autoplayed"]:
            label += f'\n    <span class="events">({escape(played_by(move["autoplayed"]))})</span>'
        at = move["at"]
        parts.append(f'\n  <li value="{ply}"{current}>\n    {label}\n    <time datetime='
                     f'"{escape(at)}">{escape(at[:16].replace("T", " "))} UTC</time>\n  </li>')
    return Markup("".join(parts))


def played_by(note: str) -> str:
    """A move made for a seat, as the move list says it: the note is the whole sentence when
    the computer made it ("played by the computer for Ann (…)"), else the server's reason.
    The note is stored as written (English); only the frame is in the reader's language."""
    if note.startswith("played by "):
        return note
    return i18n._("played by the server: %(reason)s", reason=note)


def news(move: Mapping[str, Any]) -> list[str]:
    """What a listed move's events add to the row's own "who notation": the rules word each
    event for mail too, where it must name the move ("Black c2-c4, capturing d5"), so here an
    event that only repeats the move is left out and one that begins with it keeps the rest."""
    events: list[str] = list(move["events"])
    if move["text"] is None or not move["text"].split():
        return events
    by, text = move["by"], move["text"]
    # The whole notation, or its first word (EXIMO's path before "drop b1"), after the mover,
    # perhaps with "played" (Mimic Taking's "Player 1 played O7").
    # (The rules word their events in the reader's language, as the row's "who" is.)
    echoes = sorted({echo for said in (text, text.split()[0])
                     for echo in (f"{by} {said}",
                                  i18n._("%(player)s played %(card)s", player=by, card=said))},
                    key=len, reverse=True)
    kept = []
    for event in events:
        echo = next((e for e in echoes if event == e or event.startswith((f"{e}, ", f"{e}; "))),
                    None)
        if echo is None:
            kept.append(event)
        elif event != echo:
            kept.append(event[len(echo) + 2:])
    return kept


def timeout_words(policy: str) -> str:
    """A timeout policy (`autoplay`) as players read it."""
    words = TimeoutPolicy.WORDS.get(policy)
    return i18n._(words) if words else policy


# What a plain dict has as attributes (`d.items`, `d.get`, …): `x.items` must still find them.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class QuickLookups:
    """What pbem's Jinja environments (the web's and the mail's) do faster than Jinja's own,
    with the same answers. Mixed in before the environment class."""

    globals: dict[str, Any]

    def getattr(self, obj: Any, attribute: str) -> Any:
        """`x.name` where `x` is a plain dict (what views are made of): Jinja tries
        `getattr(x, "name")` first and `x["name"]` after, and on a plain dict the first
        always raises AttributeError (unless `name` is one of a dict's own attributes), an
        exception raised and caught on every lookup in a mail's view. Looking in the dict
        first gives the same answer for every other name, without the exception."""
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)  # type: ignore[attr-defined]
        return super().getattr(obj, attribute)  # type: ignore[misc]

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals. Jinja gives every template a ChainMap of its own globals over
        the environment's, and every render copies that ChainMap, key by key through Python
        code, into the render's context: a fifth of rendering a mail, which renders six
        templates. pbem's templates have no globals of their own, so they get the
        environment's dict itself: the same names, and names added later are seen the same."""
        if not d:
            return self.globals
        return super().make_globals(d)  # type: ignore[misc]

    def get_template(self, name: Any, parent: str | None = None,
                     globals: MutableMapping[str, Any] | None = None) -> jinja2.Template:
        """Jinja's, refusing template globals: Jinja adds them to a cached template's
        globals, which here are the environment's own (`make_globals`), so they would reach
        every template."""
        if globals:
            raise TypeError("pbem's templates take no globals of their own: pass a context")
        return super().get_template(name, parent)  # type: ignore[misc]


class Environment(QuickLookups, jinja2.Environment):
    """The mail's Jinja environment."""


def vacation_days(vacation: Mapping[str, Any]) -> str:
    """A vacation of a record (`from` and `to` instants, UTC) as its days in the reader's
    language, the last one included: "Tue 06 Jan 2026 to Wed 07 Jan 2026"."""
    return i18n.format_days(datetime.fromisoformat(vacation["from"].removesuffix("Z")),
                            datetime.fromisoformat(vacation["to"].removesuffix("Z")))


def utc(moment: datetime | None, form: str = "%Y-%m-%d %H:%M") -> str:
    """A stored (naive UTC) time in the reader's zone and language, saying which zone:
    "2026-11-22 20:00 UTC", "22.11.26, 21:00 MEZ"; "—" for none (see `pbem.i18n`)."""
    return i18n.format_time(moment, form)


def install_i18n(env: jinja2.Environment) -> None:
    """`_()`, `ngettext()` and `{% trans %}` in templates, translated by `pbem.i18n` into the
    language in force (newstyle: `_("%(n)s moves", n=3)` fills and escapes the variables).
    Whitespace inside `{% trans %}` is trimmed, as the extraction for the catalogs does."""
    if "jinja2.ext.InternationalizationExtension" not in env.extensions:
        env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_callables(  # type: ignore[attr-defined]  # added by the extension
        lambda message: i18n.translations(i18n.current()).gettext(message),
        lambda singular, plural, n: i18n.translations(i18n.current()).ngettext(
            singular, plural, n),
        newstyle=True,
        pgettext=lambda context, message: i18n.translations(i18n.current()).pgettext(
            context, message))
    # The same answers as the extension's newstyle callables, in one call each: those go
    # through `context.call` three times a word (`_` looks `gettext` up, which calls the
    # translating function), and a play page translates over a hundred words.
    env.globals.update(_=_gettext, gettext=_gettext, ngettext=_ngettext, pgettext=_pgettext)
    env.globals.update(current_language=i18n.current, languages=i18n.LANGUAGES,
                       format_number=i18n.format_number)


def _filled(eval_ctx: EvalContext, text: str, variables: dict[str, Any]) -> str:
    """What the extension's newstyle callables make of a translation: marked safe under
    autoescape (the variables escaped as they are filled in), and always read as a format
    string (`%%` is `%`). A text without `%` and no variables is left as it is."""
    if eval_ctx.autoescape:
        text = Markup(text)
    if not variables and "%" not in text:
        return text
    return text % variables


@jinja2.pass_eval_context
def _gettext(eval_ctx: EvalContext, message: str, **variables: Any) -> str:
    return _filled(eval_ctx, i18n.translations(i18n.current()).gettext(message), variables)


@jinja2.pass_eval_context
def _ngettext(eval_ctx: EvalContext, singular: str, plural: str, num: int,
              **variables: Any) -> str:
    variables.setdefault("num", num)
    return _filled(eval_ctx, i18n.translations(i18n.current()).ngettext(singular, plural, num),
                   variables)


@jinja2.pass_eval_context
def _pgettext(eval_ctx: EvalContext, context: str, message: str, **variables: Any) -> str:
    variables.setdefault("context", context)
    return _filled(eval_ctx, i18n.translations(i18n.current()).pgettext(context, message),
                   variables)


def register(env: jinja2.Environment) -> jinja2.Environment:
    install_i18n(env)
    env.globals.update(options=options, option_values=option_values, move_rows=move_rows)
    env.filters["timeout_words"] = timeout_words
    env.filters["utc"] = utc
    env.filters["day"] = i18n.format_date
    env.filters["points"] = i18n.format_points
    env.filters["vacation_days"] = vacation_days
    env.filters["player_name"] = shown_name  # the computer's name in the reader's language
    env.globals.update(board_svg=grid.svg, board_table=table.board_table)
    # The template translates the sentence where it shows it.
    env.globals.update(computer_strength=strength.measured, computer_decided=strength.decided,
                       computer_strength_how=strength.MEASURED_HOW)
    # Each game's templates call its own drawing functions by name (its description lists
    # them), so adding a game adds none here.
    for game in DESCRIPTIONS.values():
        env.globals.update(game.template_globals)
    return env


def _option_word(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
