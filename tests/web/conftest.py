"""Browser fixtures shared by every page test that drives Chromium (defined in test_browser)."""

from tests.web.test_browser import browser, server, watch_console  # noqa: F401
