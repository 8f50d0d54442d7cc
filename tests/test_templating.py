"""The template helpers every environment shares (pages, mail): how values read to players."""

from __future__ import annotations

from pbem.templating import option_values


def test_options_read_as_a_player_types_them_with_on_and_off() -> None:
    assert option_values({"face_up": True, "size": 8, "directioner_first": False}) == (
        "face_up=on, size=8, directioner_first=off")
    assert option_values({}) == ""
