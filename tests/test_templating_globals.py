"""pbem's Jinja environments hand every template the environment's own globals (see
`pbem.templating.QuickLookups`): the same answers as Jinja's ChainMap, without copying it on
each render, and nothing can add globals to one template behind the others' backs."""

from __future__ import annotations

import jinja2
import pytest

from pbem.templating import Environment


def _env() -> Environment:
    return Environment(loader=jinja2.DictLoader({"a.txt": "{{ greeting }} {{ name }}"}))


def test_a_template_sees_the_environments_globals_as_they_are_now() -> None:
    env = _env()
    env.globals["greeting"] = "hello"
    template = env.get_template("a.txt")
    env.globals["greeting"] = "hi"  # added after loading, as the web app's are
    assert template.render(name="ann") == "hi ann"
    assert template.globals is env.globals


def test_template_globals_are_refused_rather_than_leaked_to_every_template() -> None:
    env = _env()
    with pytest.raises(TypeError, match="no globals of their own"):
        env.get_template("a.txt", globals={"greeting": "leak"})
    assert "greeting" not in env.globals
