"""The app asks once per hook and view whether it is a coroutine function (Flask asks on every
request, a dozen times), and keeps that answer in a bounded dict."""

from __future__ import annotations

import flask.app
import pytest

import pbem.web


def test_each_function_is_asked_about_once(client, app, monkeypatch: pytest.MonkeyPatch) -> None:
    client.get("/")  # every hook and the view asked about once
    asked: list[object] = []
    real = flask.app.iscoroutinefunction

    def counting(func: object) -> bool:
        asked.append(func)
        return real(func)
    monkeypatch.setattr(flask.app, "iscoroutinefunction", counting)
    assert client.get("/").status_code == 200
    assert asked == []
    assert client.get("/games").status_code == 200
    assert len(asked) == 1  # its view alone (the hooks were asked about already)


def test_the_answers_kept_are_bounded(app, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pbem.web, "_SYNCED", 3)
    functions = [lambda number=number: number for number in range(10)]
    for function in functions:
        assert app.ensure_sync(function) is function
    assert len(app._synced) <= 4
