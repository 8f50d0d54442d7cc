"""The catalogs say every sentence the code marks, in every language, and nothing else.

The sentences are extracted from the code and the templates exactly as `pybabel extract`
does (pbem/translations/babel.cfg, the keywords of update.sh), then each language's catalog
must translate each of them (no empty or fuzzy entry), keep their `%(name)s` placeholders,
hold no sentence the code no longer has (stale), and be compiled: the shipped `.mo` must
say what the `.po` says. A sentence added to a template without its translations fails here.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from pbem import i18n

TOP = Path(__file__).resolve().parents[2]
TRANSLATIONS = TOP / "pbem" / "translations"
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
            "lazy_gettext": None, "N_": None, "NP_": ((1, "c"), 2)}
PLACEHOLDER = re.compile(r"%\((\w+)\)[srd]|%[srd]")


@cache
def extracted() -> dict[tuple[str | None, str], tuple[str, ...]]:
    """Each marked sentence (its context and singular) with its plural, if any."""
    with open(TRANSLATIONS / "babel.cfg", encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[str, tuple[str, ...]] = {}
    for _file, _line, message, _comments, context in extract_from_dir(
            str(TOP), method_map, options_map, keywords=KEYWORDS):
        forms = message if isinstance(message, tuple) else (message,)
        if forms[0]:
            found[(context, forms[0])] = forms
    return found


def _catalog(code: str):  # type: ignore[no-untyped-def]
    with open(TRANSLATIONS / code / "LC_MESSAGES" / "messages.po", "rb") as po:
        return read_po(po, locale=code)


TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]


def test_there_are_two_translations_besides_english() -> None:
    assert set(TRANSLATED) == {"de", "ja"}


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_marked_sentence_is_translated(code: str) -> None:
    catalog = _catalog(code)
    missing = []
    for context, msgid in extracted():
        entry = catalog.get(msgid, context=context)
        strings = entry.string if entry is not None else None
        forms = strings if isinstance(strings, tuple) else (strings,)
        if entry is None or entry.fuzzy or not all(forms):
            missing.append(msgid)
    assert not missing, (
        f"{len(missing)} sentences have no {code} translation; run "
        f"`bash pbem/translations/update.sh` and translate them, first ones: {missing[:10]}")


@pytest.mark.parametrize("code", TRANSLATED)
def test_no_stale_sentences(code: str) -> None:
    stale = [m.id for m in _catalog(code) if m.id and
             (m.context, m.id[0] if isinstance(m.id, tuple) else m.id) not in extracted()]
    assert not stale, (f"the {code} catalog translates sentences the code no longer has "
                       f"(run update.sh): {stale[:10]}")


@pytest.mark.parametrize("code", TRANSLATED)
def test_translations_keep_the_placeholders(code: str) -> None:
    wrong = []
    for message in _catalog(code):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set(PLACEHOLDER.findall(ids[-1])) | set(PLACEHOLDER.findall(ids[0]))
        for string in filter(None, strings):
            # A language with one plural form may leave out the count (`%(num)s`).
            have = set(PLACEHOLDER.findall(string or ""))
            if not have <= wanted or not (wanted - {"num"}) <= have:
                wrong.append((ids[0], string))
    assert not wrong, f"placeholders differ in {code}: {wrong[:5]}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_compiled_catalog_is_up_to_date(code: str) -> None:
    with open(TRANSLATIONS / code / "LC_MESSAGES" / "messages.mo", "rb") as mo:
        compiled = {(m.context, _key(m.id)): _key(m.string) for m in read_mo(mo) if m.id}
    written = {(m.context, _key(m.id)): _key(m.string) for m in _catalog(code)
               if m.id and not m.fuzzy and all(m.string if isinstance(m.string, tuple)
                                                 else (m.string,))}
    assert compiled == written, "the .mo is stale: run `bash pbem/translations/update.sh`"


def _key(value: object) -> object:
    # A plural entry's forms come back as a list from a .mo and a tuple from a .po.
    return tuple(value) if isinstance(value, list | tuple) else value


def test_the_template_of_the_catalogs_is_up_to_date() -> None:
    with open(TRANSLATIONS / "messages.pot", "rb") as pot:
        template = {(m.context, m.id[0] if isinstance(m.id, tuple) else m.id)
                    for m in read_po(pot) if m.id}
    assert template == set(extracted()), "messages.pot is stale: run update.sh"
