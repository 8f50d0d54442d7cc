"""The template helpers every environment shares (pages, mail): how values read to players;
and pbem.templating.Environment, which looks in a plain dict first for `x.name`: every
template must read exactly what Jinja's own lookup reads."""

from __future__ import annotations

from collections import OrderedDict
from types import SimpleNamespace

import jinja2
import pytest

from pbem.templating import Environment, option_values


def test_options_read_as_a_player_types_them_with_on_and_off() -> None:
    assert option_values({"face_up": True, "size": 8, "directioner_first": False}) == (
        "face_up=on, size=8, directioner_first=off")
    assert option_values({}) == ""


def both(source: str, **context: object) -> tuple[str, str]:
    ours = Environment(undefined=jinja2.StrictUndefined).from_string(source).render(context)
    jinjas = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(source).render(
        context)
    return ours, jinjas


@pytest.mark.parametrize(("source", "context"), [
    ("{{ view.seats[1].name }}", {"view": {"seats": [{"name": "Ann"}, {"name": "Ben"}]}}),
    # A key named like a dict method: `x.items` is still the method, as in Jinja.
    ("{{ d.items()|list }} {{ d['items'] }}", {"d": {"items": 3}}),
    ("{{ d.get('a') }} {{ d.keys()|list }}", {"d": {"a": 1}}),
    ("{{ o.name }} {{ o.size }}", {"o": SimpleNamespace(name="x", size=2)}),
    ("{{ d.a }}", {"d": OrderedDict(a=1)}),
    ("{{ d.missing is defined }}", {"d": {"a": 1}}),
])
def test_a_lookup_reads_what_jinja_reads(source: str, context: dict) -> None:
    ours, jinjas = both(source, **context)
    assert ours == jinjas


def test_a_missing_key_is_still_an_error_under_strict_undefined() -> None:
    template = Environment(undefined=jinja2.StrictUndefined).from_string("{{ d.nope }}")
    with pytest.raises(jinja2.UndefinedError, match="nope"):
        template.render(d={"a": 1})


def test_a_page_of_moves_is_written_once_per_list_address_and_language() -> None:
    from pbem.i18n import language
    from pbem.templating import move_rows

    moves = [{"ply": 1, "seat": 0, "by": "Blue", "text": "a1-a2", "events": [],
              "at": "2026-01-05T12:00:00Z", "autoplayed": None, "conditional": True}]
    first = move_rows(moves, "/play/x", None)
    assert move_rows(moves, "/play/x", None) is first  # kept
    assert 'href="/play/x?ply=1"' in first and "(conditional)" in first
    assert 'aria-current="step"' in move_rows(moves, "/play/x", 1)
    with language("de"):
        assert "(bedingt)" in move_rows(moves, "/play/x", None)
    # Another list, even with the same contents, is written for itself.
    other = [dict(moves[0], text="b1-b2")]
    assert "b1-b2" in move_rows(other, "/play/x", None)
    assert "a1-a2" in move_rows(moves, "/play/x", None)


@pytest.mark.parametrize("code", ["en", "de", "ja"])
def test_a_literal_word_reads_as_gettext_gives_it(code: str) -> None:
    """`_("literal")` renders exactly what calling `_` with a variable renders, in every
    language, `%%` and escaping included, in HTML and in text templates."""
    from pbem.i18n import language
    from pbem.templating import install_i18n

    def env(autoescape: bool) -> Environment:
        made = Environment(undefined=jinja2.StrictUndefined, autoescape=autoescape)
        install_i18n(made)
        return made

    words = ["Resign", "Board as text", "100%% sure", "Skip to the board"]
    literal = "".join(f"[{{{{ _({word!r}) }}}}]" for word in words)
    # The same words through a call that is not rewritten (a variable argument).
    called = "".join(f"[{{{{ _(words[{n}]) }}}}]" for n in range(len(words)))
    with language(code):
        html = env(True)
        assert html.from_string(literal).render() == html.from_string(called).render(
            words=words)
        # Joined to unsafe text, a word stays safe and the text is escaped, as before.
        joined = '{{ _("Resign") ~ "<b>" }}'
        assert "&lt;b&gt;" in html.from_string(joined).render()
        text = env(False)
        assert text.from_string(joined).render().endswith("<b>")
    assert "100% sure" in env(True).from_string(literal).render()


@pytest.mark.parametrize("source", [
    '{% macro m(_) %}{{ _("Resign") }}{% endmacro %}{{ m(upper) }}',
    '{% set _ = upper %}{{ _("Resign") }}',
    '{% for _ in [upper] %}{{ _("Resign") }}{% endfor %}',
    '{% autoescape false %}{{ _("Fish & chips")|e }}{% endautoescape %}',
])
def test_where_underscore_is_not_gettext_the_template_is_left_as_written(source: str) -> None:
    """Where `_` is rebound or escaping is switched, the output is Jinja's own."""
    from pbem.templating import install_i18n

    env = Environment(undefined=jinja2.StrictUndefined, autoescape=True)
    install_i18n(env)
    rendered = env.from_string(source).render(upper=str.upper)
    assert rendered in ("RESIGN", "Fish &amp; chips")


def test_a_literal_missing_its_variables_is_an_error_not_a_blank() -> None:
    from pbem.templating import install_i18n

    env = Environment(undefined=jinja2.StrictUndefined, autoescape=True)
    install_i18n(env)
    with pytest.raises(KeyError, match="'n'"):
        env.from_string('{{ _("%(n)s moves") }}').render()
