"""The app's requests read their query, form and cookies through a dict whose `get` skips
werkzeug's raised-and-caught error for a missing key: its answers must be werkzeug's."""

from __future__ import annotations

from werkzeug.datastructures import ImmutableMultiDict


def test_get_answers_as_werkzeug_does(app) -> None:
    with app.test_request_context("/?a=1&a=2&b=x&c=", headers={"Cookie": "k=v"}):
        from flask import request

        ours, theirs = request.args, ImmutableMultiDict(list(request.args.items(multi=True)))
        assert type(ours) is not ImmutableMultiDict and type(request.cookies) is type(ours)
        for key, default, kind in [("a", None, None), ("a", 7, int), ("b", 7, int),
                                   ("c", "d", None), ("missing", None, None),
                                   ("missing", 5, int), ("b", None, str.upper)]:
            assert ours.get(key, default, kind) == theirs.get(key, default, kind)
        assert request.cookies.get("k") == "v" and request.cookies.get("none") is None
        assert request.args.getlist("a") == ["1", "2"]
