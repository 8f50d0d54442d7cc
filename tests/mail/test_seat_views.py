"""Each seat's own view in mail: the board faces the recipient as on their web page, and other
players appear by display name, never by address."""

from __future__ import annotations

import re

from pbem.core.accounts.models import Player
from pbem.core.matches.creation import create_match
from tests.conftest import START

BLACK, WHITE = "black@example.org", "white@example.org"


def test_the_board_in_mail_faces_the_recipient(settings, worker, smtp) -> None:
    create_match("eximo", [BLACK, WHITE], {}, settings.secret_key, START, seed=1)
    worker.send_outbox()
    black = smtp.to(BLACK)[0]
    white = smtp.to(WHITE)[0]
    black_text = black.get_body(("plain",)).get_content()
    white_text = white.get_body(("plain",)).get_content()
    assert "    a b c d e f g h\n 8  " in black_text
    assert "    h g f e d c b a\n 1  " in white_text
    first_rank = [re.search(r"<tr><th[^>]*>(\d+)</th>", m.get_body(("html",)).get_content())
                  .group(1) for m in (black, white)]
    assert first_rank == ["8", "1"], "White's table starts from its own side"


def test_players_appear_by_display_name_never_by_address(settings, worker, smtp) -> None:
    Player.for_email(WHITE, START)
    Player.update(name="Whitney").where(Player.email == WHITE).execute()
    create_match("eximo", [BLACK, WHITE], {}, settings.secret_key, START, seed=1)
    worker.send_outbox()
    for part in smtp.to(BLACK)[0].iter_parts():
        content = part.get_content()
        assert "Whitney" in content and WHITE not in content
    assert "black (you)" in smtp.to(BLACK)[0].get_body(("plain",)).get_content()
