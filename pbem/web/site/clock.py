"""The app's clock (injected by `create_app`, so tests control time)."""

from __future__ import annotations

from datetime import datetime

from flask import current_app


def now() -> datetime:
    return current_app.config["PBEM_CLOCK"]()
