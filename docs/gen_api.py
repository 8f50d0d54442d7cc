"""The API reference (api/operations.md and api/openapi.json), generated from the description
the server itself serves at `/api/openapi.json` (`pbem/web/site/api_description.py`).

The page lists every operation by tag: method and path, summary, the token scope it needs,
its parameters, request body and answers. The JSON beside it is the same document, for API
explorers and client generators that read a file. `docs/hooks.py` writes both at every build.
"""

from __future__ import annotations

import json
from typing import Any

from pbem.web.site.api_description import document

# The site documents the API wherever pbem runs; the server's own copy names its base URL.
BASE_URL = "https://games.example.org"
_METHODS = ("get", "post", "put", "delete")


def description() -> dict[str, Any]:
    return document(BASE_URL)


def openapi_json() -> str:
    return json.dumps(description(), indent=2, ensure_ascii=False) + "\n"


def _schema_words(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in schema:
        return " or ".join(_schema_words(part) for part in schema["anyOf"])
    if schema.get("type") == "array":
        return f"array of {_schema_words(schema.get('items', {}))}"
    if "enum" in schema:
        return " \\| ".join(f"`{value}`" for value in schema["enum"]) or "`\"\"`"
    return str(schema.get("type", "any"))


def _operation(path: str, method: str, operation: dict[str, Any]) -> list[str]:
    out = [f"### `{method.upper()} {path}`", "", operation["summary"], ""]
    if "description" in operation:
        out += [operation["description"], ""]
    for parameter in operation.get("parameters", []):
        words = parameter.get("description", "")
        out.append(f"- {parameter['in']} parameter `{parameter['name']}` "
                   f"({_schema_words(parameter.get('schema', {}))}){': ' if words else ''}"
                   f"{words}")
    body = operation.get("requestBody")
    if body:
        out.append(f"- body: {_schema_words(body['content']['application/json']['schema'])}")
    answers = []
    for status, answer in sorted(operation["responses"].items()):
        answers.append(f"`{status}`" if status >= "400"
                       else f"`{status}` ({answer['description']})")
    out += [f"- answers: {'; '.join(answers)}", ""]
    return out


def _schema(name: str, schema: dict[str, Any]) -> list[str]:
    out = [f"### {name}", ""]
    required = set(schema.get("required", []))
    for field, part in schema.get("properties", {}).items():
        mark = " (always)" if field in required else ""
        words = f": {part['description']}" if "description" in part else ""
        out.append(f"- `{field}`{mark}: {_schema_words(part)}{words}")
    if not schema.get("properties"):
        out.append(f"{_schema_words(schema)}")
    return [*out, ""]


def render() -> str:
    """The operations page, in Markdown."""
    doc = description()
    out = ["# Operations", "",
           "Generated at every build of this site from the OpenAPI 3.1 description the server "
           "serves at `/api/openapi.json` (also [here](openapi.json)). "
           f"{doc['info']['description']}",
           "", "Every operation may also answer `503` while the database cannot be reached. "
           "Error answers are problem+json; [the JSON API](index.md) says what each status "
           "means.", ""]
    for tag in (t["name"] for t in doc["tags"]):
        out += [f"## {tag}", ""]
        for path, item in doc["paths"].items():
            for method in _METHODS:
                operation = item.get(method)
                if operation and operation["tags"] == [tag]:
                    out += _operation(path, method, operation)
    out += ["## Schemas", ""]
    for name, schema in doc["components"]["schemas"].items():
        out += _schema(name, schema)
    return "\n".join(out)


if __name__ == "__main__":
    print(render())
