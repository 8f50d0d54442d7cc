"""The app's own request steps, run in turn by one Flask hook of each kind.

Flask asks of every hook and view, on every request, whether it is a coroutine function
(`ensure_sync`); a dozen modules registering hooks of their own made a request ask it a dozen
times. Each module adds its steps here instead, in the order it always had: the `before`
steps run in the order added (the first that answers ends the request's handling, as a
`before_request` hook's answer does), the `after` and `teardown` steps in reverse, as Flask
runs its own hooks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import Flask, Response

Before = Callable[[], Any]
After = Callable[[Response], Response]
Teardown = Callable[[BaseException | None], None]
Step = TypeVar("Step", bound=Callable[..., Any])


@dataclass
class RequestSteps:
    """One app's steps of each kind, in the order they were added."""

    before: list[Before] = field(default_factory=list)
    after: list[After] = field(default_factory=list)
    teardown: list[Teardown] = field(default_factory=list)

    def run_before(self) -> Any:
        for step in self.before:
            answer = step()
            if answer is not None:
                return answer
        return None

    def run_after(self, response: Response) -> Response:
        for step in reversed(self.after):
            response = step(response)
        return response

    def run_teardown(self, exc: BaseException | None) -> None:
        for step in reversed(self.teardown):
            step(exc)


def steps(app: Flask) -> RequestSteps:
    """The app's steps, its three hooks registered the first time they are asked for."""
    found: RequestSteps | None = app.extensions.get("pbem_request_steps")
    if found is None:
        found = app.extensions["pbem_request_steps"] = RequestSteps()
        app.before_request(found.run_before)
        app.after_request(found.run_after)
        app.teardown_request(found.run_teardown)
    return found


def before_request(app: Flask) -> Callable[[Step], Step]:
    """`@app.before_request`, as one of the app's steps."""
    return _adding(app, "before")


def after_request(app: Flask) -> Callable[[Step], Step]:
    """`@app.after_request`, as one of the app's steps."""
    return _adding(app, "after")


def teardown_request(app: Flask) -> Callable[[Step], Step]:
    """`@app.teardown_request`, as one of the app's steps."""
    return _adding(app, "teardown")


def _adding(app: Flask, kind: str) -> Callable[[Step], Step]:
    def add(step: Step) -> Step:
        getattr(steps(app), kind).append(step)
        return step
    return add
