"""What a template reads, for the tests holding kept HTML to its key (fragments, kept pages):
the names it reads, and checks that its filters, tests and addresses depend on nothing of
the request but the mount point."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest
from jinja2 import nodes
from jinja2.defaults import DEFAULT_FILTERS, DEFAULT_TESTS

from pbem.web.site import fragments

# Jinja's built-in filters but `random`, and pbem's that read only the language and time zone.
PURE_FILTERS = (set(DEFAULT_FILTERS) - {"random"}) | fragments.PURE_FILTERS


def names_read(tree: nodes.Template) -> set[str]:
    """Every name the template reads (Jinja's own `find_undeclared_variables` leaves out the
    environment's globals, the very names to check)."""
    return {node.name for node in tree.find_all(nodes.Name) if node.ctx == "load"}


def check_filters_tests_and_addresses(tree: nodes.Template, template: str) -> None:
    used = {node.name for node in tree.find_all(nodes.Filter)}
    assert used <= PURE_FILTERS, f"{template} filters with {sorted(used - PURE_FILTERS)}"
    tested = {node.name for node in tree.find_all(nodes.Test)}
    assert tested <= set(DEFAULT_TESTS), f"{template} tests {sorted(tested)}"
    # An address depends on the request only through the mount point (in the key): not
    # through the host (`_external`) or the blueprint (a relative endpoint).
    for call in tree.find_all(nodes.Call):
        if isinstance(call.node, nodes.Name) and call.node.name == "url_for":
            endpoint = call.args[0] if call.args else None
            assert isinstance(endpoint, nodes.Const) and not endpoint.value.startswith(
                "."), f"{template}: url_for of a named endpoint"
            assert call.dyn_kwargs is None and not any(
                arg.key.startswith("_") for arg in call.kwargs), (
                f"{template}: url_for with {[arg.key for arg in call.kwargs]}")


def each_addition_fails(env: Any, monkeypatch: pytest.MonkeyPatch, template: str,
                        additions: Iterable[str], check: Callable[[], None]) -> None:
    """`check` fails with each of `additions` added to `template` in turn: a static check
    catches what it is for."""
    original = env.loader.get_source
    for added in additions:
        def source(environment: Any, name: str, added: str = added) -> Any:
            text, filename, uptodate = original(environment, name)
            return (text + added if name == template else text), filename, uptodate
        monkeypatch.setattr(env.loader, "get_source", source)
        with pytest.raises(AssertionError):
            check()
    monkeypatch.setattr(env.loader, "get_source", original)
