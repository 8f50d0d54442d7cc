"""The settings reference (operators/settings.md), generated from the settings' definitions.

Every setting is a field of `pbem.config.Settings` (its name, type and default); what it means
is the comment above it in `config.example.toml`, the file operators copy, else the comment
above the field in `pbem/config.py`. Keys that follow one another without a blank line share
the comment above the first, as they do in the file. `docs/hooks.py` renders the page at
every build, and `tests/test_docs.py` fails when a setting has no words.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

from pbem.config import Settings

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "config.example.toml"
SOURCE = ROOT / "pbem" / "config.py"
_KEY_LINE = re.compile(r"^#?\s*([a-z_]+)\s*=\s*(.*?)\s*(?:#\s*(.*))?$")
_TYPE_WORDS = {"bool": "true or false", "int": "whole number", "str": "text"}


@dataclass
class Group:
    """Settings the example file describes together, with the comment above them."""

    text: str
    keys: list[str] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)


def example_groups(known: set[str], text: str | None = None) -> list[Group]:
    """The example file's settings, in its order, grouped under their comments."""
    text = EXAMPLE.read_text() if text is None else text
    groups: list[Group] = []
    comment: list[str] = []
    current: Group | None = None
    for line in text.splitlines():
        stripped = line.strip()
        match = _KEY_LINE.match(stripped)
        if match and match.group(1) in known:
            if comment or current is None:
                current = Group(_words(comment))
                groups.append(current)
                comment = []
            current.keys.append(match.group(1))
            if match.group(3):
                current.notes[match.group(1)] = match.group(3)
        elif stripped.startswith("#"):
            words = stripped[1:]
            # An indented comment line is an example (a URL, a command): kept as code.
            example = words.startswith("   ")
            comment.append(f"\n\n`{words.strip()}`\n\n" if example else words.strip())
        elif not stripped:
            comment, current = [], None
    return groups


def _words(lines: list[str]) -> str:
    """Comment lines as Markdown: prose joined into one paragraph, examples kept apart."""
    text = " ".join(lines)
    return re.sub(r" *\n\n+ *", "\n\n", text).strip()


def source_comments() -> dict[str, str]:
    """The comment block right above each field of `Settings` in pbem/config.py."""
    lines = SOURCE.read_text().splitlines()
    tree = ast.parse("\n".join(lines))
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Settings":
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    above: list[str] = []
                    row = item.lineno - 2
                    while row >= 0 and lines[row].strip().startswith("#"):
                        above.insert(0, lines[row].strip().lstrip("#").strip())
                        row -= 1
                    if above:
                        found[item.target.id] = " ".join(above)
    return found


def groups() -> list[Group]:
    """Every setting in a group with its words: the example file's, then the code's."""
    names = [f.name for f in dataclasses.fields(Settings)]
    result = example_groups(set(names))
    listed = {key for group in result for key in group.keys}
    comments = source_comments()
    for name in names:
        if name not in listed:
            result.append(Group(comments.get(name, ""), [name]))
    return result


def _default(setting: dataclasses.Field) -> str:
    value = setting.default
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if value == "":
        return "empty"
    return f"`{value}`"


def render() -> str:
    """The page, in Markdown."""
    by_name = {f.name: f for f in dataclasses.fields(Settings)}
    out = ["# Settings reference", "",
           "Generated from `pbem/config.py` and `config.example.toml` at every build of this "
           "site. Each setting is a key of the TOML file and an environment variable "
           "`PBEM_` plus the key in capitals; the environment wins over the file "
           "(see [Configuration](configuration.md)).", ""]
    for group in groups():
        out += [f"## {', '.join(group.keys)}", "", group.text or "(not described)", "",
                "| setting | environment variable | type | default |", "|---|---|---|---|"]
        for key in group.keys:
            kind = str(by_name[key].type)
            note = f" ({group.notes[key]})" if key in group.notes else ""
            out.append(f"| `{key}` | `PBEM_{key.upper()}` | {_TYPE_WORDS.get(kind, kind)} "
                       f"| {_default(by_name[key])}{note} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(render())
