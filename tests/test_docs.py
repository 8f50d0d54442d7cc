"""The documentation names only what exists: every `pbem` command in the README's and the docs'
code is one the command line's parser takes, and every address (`/play/<token>`, `GET /api/…`)
is one the app routes, with that method. Also: the README stays short, and the generated
settings reference has words for every setting.

Code means fenced blocks and inline code spans, in README.md and docs/**/*.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from flask import Flask

from pbem.cli import _parser
from pbem.config import Settings, load_settings
from pbem.web import create_app

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))  # the generators of the docs' reference pages

import gen_api  # noqa: E402
import gen_config  # noqa: E402

_FENCE = re.compile(r"^( *)```([\w-]*)\n(.*?)^\1```", re.S | re.M)
_SPAN = re.compile(r"(?<!`)`([^`\n]+(?:\n[^`\n]+)?)`(?!`)")
# Blocks in a shell's language, where a line may start with `pbem`; elsewhere (a Postfix
# table) only a path ending in bin/pbem is a command.
_SHELL = {"", "sh", "shell", "bash", "console"}
_SEPARATORS = {"|", "||", "&&", ";", ")", "#", "\\", "→"}
# Stand-ins a command line in the docs uses for values: MATCH, <id>, $TOKEN, "…".
_PLACEHOLDER = re.compile(r"^(?:[A-Z][A-Z_|]*|<[^>]*>|\$\S*|\S*…\S*|\[.*\])$")
# What the parser may say of a command line with stand-ins that is still a real command.
_FINE = ("the following arguments are required", "invalid int value", "expected one argument")
_ADDRESS = re.compile(
    r"(?:\b(GET|POST|PUT|DELETE|PATCH)\s+)?"
    r"(?:https?://[\w.:-]+|\$BASE|(?<![\w.~/:$-]))"
    r"(/[\w<>{}.:…-][^\s`'\"),;|\]]*)")
_VARIABLE = re.compile(r"<(?:(\w+):)?\w+>")


@dataclass(frozen=True)
class Code:
    where: str
    text: str
    shell: bool


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def code_of(path: Path) -> Iterator[Code]:
    text = path.read_text()
    where = str(path.relative_to(ROOT))
    for fence in _FENCE.finditer(text):
        yield Code(where, fence.group(3), fence.group(2) in _SHELL)
    prose = _FENCE.sub("", text)
    for span in _SPAN.finditer(prose):
        yield Code(where, span.group(1).replace("\n", " "), True)


def all_code() -> list[Code]:
    return [code for path in doc_files() for code in code_of(path)]


# --- commands --------------------------------------------------------------------------------


def _words(line: str) -> list[str]:
    line = line.replace("$(", " ").replace("[", " ").replace("]", " ")  # `[--name NAME]`
    try:
        return shlex.split(line, comments=False)
    except ValueError:  # an unbalanced quote in a config line
        return line.split()


def commands_in(code: Code) -> Iterator[list[str]]:
    """Each `pbem …` command line in a piece of code, as its arguments."""
    text = re.sub(r"\\\n\s*", " ", code.text)
    for line in text.splitlines():
        words = _words(line)
        for at, word in enumerate(words):
            tail = word.rsplit("=", 1)[-1]
            before = words[at - 1] if at else ""
            # A command starts a line or follows a separator (`ruff check pbem tests` does not).
            starts = not before or before in _SEPARATORS or before.endswith("=")
            if not (tail.endswith("bin/pbem") or (code.shell and tail == "pbem" and starts)):
                continue
            args: list[str] = []
            for arg in words[at + 1:]:
                if arg in _SEPARATORS or arg.startswith("#"):
                    break
                args.append(arg.rstrip(")"))
            yield args


def _is_command(args: list[str]) -> bool:
    # `pbem <games@example.org>` is a From address and `pbem is …` prose; a command's first
    # word after the options is a lower-case word.
    first = next((arg for arg in args if not arg.startswith("-")), "")
    return bool(re.fullmatch(r"[a-z][a-z-]*", first)) or args[:1] == ["--help"]


class _Refused(Exception):
    pass


def refusal(args: list[str]) -> str | None:
    """Why the command line's parser refuses `args`, if not only for its stand-ins."""
    words = list(args)
    if "--config" in words:  # the file it names is the reader's own
        at = words.index("--config")
        del words[at:at + 2]
    words = ["1" if _PLACEHOLDER.match(word) else word for word in words]
    def refuse(parser: argparse.ArgumentParser, message: str) -> None:
        raise _Refused(message)

    # `error` is argparse's documented hook for what a refusal does (it exits by default);
    # the subcommands' parsers are ArgumentParsers too.
    try:
        with mock.patch.object(argparse.ArgumentParser, "error", refuse):
            _parser().parse_args(words)
    except _Refused as error:
        message = str(error)
        return None if message.startswith(_FINE) else message
    except SystemExit:  # --help
        return None
    return None


def documented_commands() -> list[tuple[str, list[str]]]:
    return [(code.where, args) for code in all_code() for args in commands_in(code)
            if args and _is_command(args)]


def test_the_docs_name_commands_at_all() -> None:
    named = {next(arg for arg in args if not arg.startswith("-"))
             for _, args in documented_commands() if not args[0].startswith("--help")}
    assert {"serve", "match", "inbound", "admin", "adjudicate"} <= named


def test_every_pbem_command_in_the_docs_is_one_the_parser_takes() -> None:
    refused = [f"{where}: pbem {' '.join(args)}: {why}"
               for where, args in documented_commands() if (why := refusal(args))]
    assert not refused, "\n".join(refused)


def test_a_command_that_does_not_exist_is_caught() -> None:
    assert "invalid choice" in (refusal(["pipe"]) or "")
    assert "unrecognized" in (refusal(["match", "resign", "1", "0", "--bogus"]) or "")
    assert refusal(["--dev", "match", "resign", "MATCH", "SEAT"]) is None
    line = Code("x", "argv=/srv/pbem/.venv/bin/pbem --config /a.toml inbound --recipient ${r}",
                shell=False)
    assert list(commands_in(line)) == [["--config", "/a.toml", "inbound", "--recipient",
                                        "${r}"]]


# --- addresses -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    # Development mode and an inbound secret: the development mailbox and /inbound/mime are
    # routed only then, and the docs describe both.
    folder = tmp_path_factory.mktemp("docs")
    settings = load_settings({"development": True, "instance_path": str(folder),
                              "inbound_secret": "s" * 43}, environ={})
    return create_app(settings)


def addresses_in(code: Code) -> Iterator[tuple[str | None, str]]:
    for match in _ADDRESS.finditer(code.text):
        path = re.split(r"[?\[#]", match.group(2))[0].rstrip(".:")
        path = path.removesuffix("…")  # `/api/play/<token>/…`: any address under it
        yield match.group(1), path


def _segment_pattern(segment: str) -> str:
    parts, at = [], 0
    for variable in _VARIABLE.finditer(segment):
        parts.append(re.escape(segment[at:variable.start()]))
        parts.append("[^/]+")
        at = variable.end()
    parts.append(re.escape(segment[at:]))
    return "".join(parts)


def routes_for(app: Flask, path: str) -> list[set[str]]:
    """The methods of every rule whose pattern `path` fits (placeholders fit any variable)."""
    wanted = path.strip("/").split("/")
    found = []
    for rule in app.url_map.iter_rules():
        pattern = rule.rule.strip("/").split("/")
        if path.endswith("/") and len(wanted) <= len(pattern):  # a prefix: `/static/`
            pattern = [*pattern[:len(wanted) - 1], "[^/]*"]
            wanted_here = [*wanted[:-1], ""]
            if all(re.fullmatch(p if p == "[^/]*" else _segment_pattern(p), w)
                   for p, w in zip(pattern, wanted_here, strict=True)):
                found.append(set(rule.methods or ()))
            continue
        if pattern and pattern[-1].startswith("<path:"):
            pattern = pattern[:-1] + ["<x>"] * max(1, len(wanted) - len(pattern) + 1)
        if len(pattern) == len(wanted) and all(
                re.fullmatch(_segment_pattern(p), w) for p, w in zip(pattern, wanted,
                                                                      strict=True)):
            found.append(set(rule.methods or ()))
    return found


def test_every_address_in_the_docs_is_routed(app: Flask) -> None:
    first_segments = {rule.rule.strip("/").split("/")[0] for rule in app.url_map.iter_rules()}
    missing, checked = [], 0
    for code in all_code():
        for method, path in addresses_in(code):
            if path.strip("/").split("/")[0] not in first_segments:
                continue  # /etc/postfix/…, /srv/pbem/…: not the app's
            checked += 1
            methods = routes_for(app, path)
            if not methods:
                missing.append(f"{code.where}: {path} is not routed")
            elif method and not any(method in allowed for allowed in methods):
                missing.append(f"{code.where}: {method} {path} is routed, but not for {method}")
    assert checked > 100
    assert not missing, "\n".join(missing)


def test_an_address_that_is_not_routed_is_caught(app: Flask) -> None:
    assert routes_for(app, "/play/<token>") and routes_for(app, "/static/pbem.css")
    assert routes_for(app, "/matches/12/record.json")
    assert not routes_for(app, "/api/play/<token>/teleport")
    assert not any("DELETE" in methods for methods in routes_for(app, "/api/matches"))
    line = Code("x", "curl -X POST $BASE/api/challenges/computer; GET /api/matches?game=…",
                shell=True)
    assert list(addresses_in(line)) == [("POST", "/api/challenges/computer"),
                                        ("GET", "/api/matches")]


# --- the README and the generated pages ------------------------------------------------------


def test_the_readme_is_short_and_keeps_its_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    # .ci/run runs the second one (with -q); a newcomer runs both as written here.
    assert "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/pbem --dev serve" \
        in readme
    assert "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest" \
        in readme


def test_every_setting_has_words_in_the_settings_reference() -> None:
    groups = gen_config.groups()
    described = {key for group in groups if group.text for key in group.keys}
    names = {setting.name for setting in dataclasses.fields(Settings)}
    assert names - described == set(), "settings with no comment in config.example.toml " \
                                        "or pbem/config.py"
    page = gen_config.render()
    assert all(f"`PBEM_{name.upper()}`" in page for name in names)


def test_the_api_reference_lists_every_operation() -> None:
    page = gen_api.render()
    for path, item in gen_api.description()["paths"].items():
        for method in item:
            assert f"`{method.upper()} {path}`" in page


_FILE_ENDINGS = {"toml", "css", "js", "json", "sqlite3", "txt", "md", "py", "png"}


# The guide's worked example is written as a game folder of pbem's; the suite keeps it as the toy
# game under tests/games/toy (tests/games/test_toy_game.py holds the guide and the toy together).
_GUIDE_EXAMPLE = ("pbem.games.tic_tac_toe", "tests.games.toy.tic_tac_toe")


def _resolves(dotted: str) -> bool:
    example, toy = _GUIDE_EXAMPLE
    if dotted == example or dotted.startswith(example + "."):
        dotted = toy + dotted[len(example):]
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def test_every_dotted_name_of_pbem_in_the_docs_exists() -> None:
    names = {(code.where, name) for code in all_code()
             for name in re.findall(r"(?<![\w/])pbem(?:\.\w+)+", code.text)
             if name.rsplit(".", 1)[-1] not in _FILE_ENDINGS}  # pbem.toml is a file
    assert len(names) > 3
    missing = sorted(f"{where}: {name}" for where, name in names if not _resolves(name))
    assert not missing, "\n".join(missing)
    assert not _resolves("pbem.core.preferences.clear_undeliverable")
