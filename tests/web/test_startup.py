"""A web worker loads only what its pages need: libraries for rare addresses (the calendar
feed's icalendar, the metrics page's prometheus_client, the Swiss pairing's networkx) are
imported when first asked for. Together they were over 15 MiB of every worker's memory
(bench/memory.py). So are pbem's own large parts that most workers never run: the OpenAPI
document, the mail composer and the email validator; and the mail pipeline with the inbound
endpoint and the development mailbox, which exist only where configured. WTForms (with
urllib.request) came with Flask-WTF for its CSRF check alone: pbem checks the token itself."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import STRONG_KEY


def test_a_new_web_worker_has_not_loaded_the_rare_pages_libraries(tmp_path) -> None:
    probe = ("import sys\n"
             "from pbem.web import create_app\n"
             "create_app()\n"
             "rare = ('icalendar', 'prometheus_client', 'networkx', 'openskill',\n"
             "        'email_validator', 'pbem.web.site.api_description', 'pbem.mail.compose',\n"
             "        'pbem.mail.inbound', 'pbem.web.mail.inbound', 'pbem.web.mail.devmail',\n"
             "        'wtforms', 'urllib.request')\n"
             "print(' '.join(sorted(m for m in rare if m in sys.modules)))\n")
    env = {**os.environ, "PBEM_SECRET_KEY": STRONG_KEY, "PBEM_INSTANCE_PATH": str(tmp_path),
           "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'probe.sqlite3'}"}
    loaded = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                            text=True, check=True).stdout.strip()
    assert loaded == ""
