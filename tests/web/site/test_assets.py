"""Static files linked by their content's hash are kept by browsers for a year; any other
address of them is revalidated, as before."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pbem.web.site.assets import YEAR

STATIC = Path(__file__).resolve().parents[3] / "pbem" / "web" / "static"


def test_pages_link_the_stylesheet_by_its_hash_and_browsers_keep_it(client) -> None:
    page = client.get("/games").get_data(as_text=True)
    linked = re.search(r'href="(/static/pbem\.css\?v=(\w+))"', page)
    assert linked, "the stylesheet is linked with its hash"
    expected = hashlib.sha256((STATIC / "pbem.css").read_bytes()).hexdigest()[:12]
    assert linked.group(2) == expected
    kept = client.get(linked.group(1))
    assert kept.status_code == 200
    assert kept.headers["Cache-Control"] == f"public, max-age={YEAR}"
    kept.close()


def test_another_address_of_the_file_is_revalidated(client) -> None:
    client.get("/games")  # the page works the hash out
    for path in ("/static/pbem.css", "/static/pbem.css?v=0123456789ab"):
        answer = client.get(path)
        assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-cache", path
        assert client.get(path, headers={"If-None-Match": answer.headers["ETag"]}
                          ).status_code == 304
        answer.close()
