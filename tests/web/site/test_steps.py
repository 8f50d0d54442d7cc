"""The app's request steps: one Flask hook of each kind runs them in Flask's order."""

from __future__ import annotations

from flask import Flask, Response

from pbem.web.site import steps


def _app(said: list[str], answer_at: str | None = None) -> Flask:
    app = Flask(__name__)
    for name in ("first", "second"):
        def before(name: str = name) -> str | None:
            said.append(f"before {name}")
            return f"answered by {name}" if name == answer_at else None

        def after(response: Response, name: str = name) -> Response:
            said.append(f"after {name}")
            return response

        def teardown(_exc: BaseException | None, name: str = name) -> None:
            said.append(f"teardown {name}")

        steps.before_request(app)(before)
        steps.after_request(app)(after)
        steps.teardown_request(app)(teardown)

    def view() -> str:
        said.append("view")
        return "viewed"

    app.add_url_rule("/", "view", view)
    return app


def test_steps_run_in_flasks_order_through_one_hook_of_each_kind() -> None:
    said: list[str] = []
    app = _app(said)
    assert app.test_client().get("/").text == "viewed"
    assert said == ["before first", "before second", "view", "after second", "after first",
                    "teardown second", "teardown first"]
    assert [len(app.before_request_funcs[None]), len(app.after_request_funcs[None]),
            len(app.teardown_request_funcs[None])] == [1, 1, 1]


def test_a_before_step_that_answers_ends_the_handling() -> None:
    said: list[str] = []
    app = _app(said, answer_at="first")
    assert app.test_client().get("/").text == "answered by first"
    assert said == ["before first", "after second", "after first", "teardown second",
                    "teardown first"]


def test_the_app_registers_one_hook_of_each_kind(app: Flask) -> None:
    assert [len(app.before_request_funcs[None]), len(app.after_request_funcs[None]),
            len(app.teardown_request_funcs[None])] == [1, 1, 1]
