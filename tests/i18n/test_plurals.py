"""Every count a person reads agrees with its noun, in every language: each plural sentence
the code marks renders with 0, 1, 2 and 5 in English, German and Japanese, the count in it and
the form the language's plural rule picks; and the sentences a newcomer met ("after 1 moves",
"nach 1 Zügen") now say one move."""

from __future__ import annotations

import re

import pytest

from pbem import i18n
from pbem.web.matches.public import preview
from tests.i18n.test_catalogs import PLACEHOLDER, _catalog, extracted

COUNTS = (0, 1, 2, 5)
PLURALS = sorted(forms for forms in extracted().values() if len(forms) == 2)


def test_there_are_plural_sentences_to_check() -> None:
    assert len(PLURALS) > 40


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_every_plural_sentence_renders_with_0_1_2_and_5(code: str) -> None:
    wrong = []
    with i18n.language(code):
        for singular, plural in PLURALS:
            names = {name for name in PLACEHOLDER.findall(singular + plural)} - {"", "num"}
            for n in COUNTS:
                values = {name: f"<{name}>" for name in names}
                try:
                    text = i18n.ngettext(singular, plural, n, **values)
                except (KeyError, TypeError, ValueError) as error:
                    wrong.append((singular, n, repr(error)))
                    continue
                shows_count = "%(num)s" in singular
                if shows_count and not re.search(rf"(?<![0-9]){n}(?![0-9])", text):
                    wrong.append((singular, n, text))
    assert not wrong, wrong


@pytest.mark.parametrize(("code", "rule"), [("de", "nplurals=2; plural=(n != 1);"),
                                            ("ja", "nplurals=1; plural=0;")])
def test_each_catalog_counts_by_its_languages_rule(code: str, rule: str) -> None:
    catalog = _catalog(code)
    assert catalog.plural_forms.replace(" ", "") == rule.replace(" ", "")
    for message in catalog:
        if isinstance(message.id, tuple):
            assert len(message.string) == catalog.num_plurals, message.id


@pytest.mark.parametrize(("code", "one", "five"), [
    ("en", "Finished after 1 move: ", "Finished after 5 moves: "),
    ("de", "Beendet nach 1 Zug: ", "Beendet nach 5 Zügen: "),
    ("ja", "1 手で終局", "5 手で終局"),
])
def test_a_finished_match_says_one_move_in_the_singular(app, code: str, one: str,
                                                        five: str) -> None:
    def words(ply: int) -> str:
        record = {"match": 7, "shown_ply": ply, "ply": ply, "status": "finished",
                  "game": "mimic", "players": [{"name": "Ann", "label": "Blue"}],
                  "result": {"headline": "Ann wins"}, "shown_to_move": [], "title": "Mimic"}
        return str(preview(record)["description"])

    with app.test_request_context(), i18n.language(code):
        assert one in words(1) and five in words(5)
