"""A seat's play page and the public match page read in Japanese and German: their headings,
buttons, labels and sentences are translated (nothing of the play pages' own English is left;
the game's own words, the notation and the players' names are not ours to translate here)."""

from __future__ import annotations

import re

import pytest

from pbem.core.matches.creation import create_match
from tests.conftest import ON_SQLITE, START

ALICE, BOB = "alice@example.org", "bob@example.org"

# The play pages' own English: headings, buttons, labels and sentences.
ENGLISH = (
    "Your turn", "Waiting for", "Deadline:", "Your move", "Make move", "or type it",
    "offer a draw with this move", "Resign", "Abort", "Board as text", "Moves", "Clocks",
    "Time control:", "for the next move", "to move by", "Talk at the board", "Your message",
    "Send", "Mute this chat", "Your notes", "Save notes", "Download your record", "Away?",
    "Vacation this year", "Declare vacation", "Deadlines are shown", "Public page",
    "How to play", "This page is private", "Conditional moves", "Store conditional moves",
    "Analysis board", "Open the analysis board", "Take back", "Skip to the board", "match #",
    "No messages yet", "No moves yet", "Submit move", "Start again", "Keys:", "First",
    "Previous", "Next", "Last", "In play, waiting", "rated", "casual", "Sign in to talk",
    "link to this position", "Download:", "days left", "per move",
)
SAYS = {
    "ja": ("あなたの手番", "持ち時間", "盤上の会話", "あなたのメモ", "条件付きの手", "検討盤"),
    "de": ("Du bist am Zug", "Bedenkzeit", "Gespräch am Brett", "Deine Notizen",
           "Bedingte Züge", "Analysebrett"),
}


def visible(html: str) -> str:
    """The page's text as read: no script data, no tags, no attribute values."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<svg\b.*?</svg>", " ", html, flags=re.S)  # the game's board drawing
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def leftover(text: str) -> list[str]:
    return [words for words in ENGLISH if re.search(rf"(?<![\w#]){re.escape(words)}(?!\w)",
                                                     text)]


@ON_SQLITE
@pytest.mark.parametrize("code", ["ja", "de"])
def test_the_play_page_and_the_match_page_speak_the_readers_language(settings, client,
                                                                      code) -> None:
    tokens = create_match("mimic", [ALICE, BOB], {}, settings.secret_key, START).tokens
    speak = {"Accept-Language": code}
    mover = client.get(f"/play/{tokens[0]}", headers=speak)
    waiting = client.get(f"/play/{tokens[1]}", headers=speak)
    public = client.get("/matches/1", headers=speak)
    for page in (mover, waiting, public):
        assert page.status_code == 200
        assert f'<html lang="{code}">' in page.get_data(as_text=True)
    mover_text, waiting_text = visible(mover.get_data(as_text=True)), visible(
        waiting.get_data(as_text=True))
    public_text = visible(public.get_data(as_text=True))
    for text in (mover_text, waiting_text, public_text):
        assert leftover(text) == [], text
    for words in SAYS[code][:2]:
        assert words in mover_text
    for words in SAYS[code][2:]:
        assert words in waiting_text
    assert SAYS[code][1] in public_text
    # The page script's own sentences come translated too (English is only its fallback).
    blob = re.search(r'<script type="application/json" id="pbem-words">(.*?)</script>',
                     mover.get_data(as_text=True), re.S).group(1)
    assert "Press Submit move" not in blob and "{move}" in blob


@ON_SQLITE
@pytest.mark.parametrize(("code", "days"), [
    ("de", "Dienstag, 6. Januar 2026 bis Mittwoch, 7. Januar 2026"),
    ("ja", "2026年1月6日火曜日 から 2026年1月7日水曜日 まで"),
])
def test_a_vacations_days_are_written_in_the_readers_language(settings, client, code,
                                                              days) -> None:
    tokens = create_match("mimic", [ALICE, BOB], {}, settings.secret_key, START).tokens
    client.post(f"/play/{tokens[0]}/vacation", data={"first_day": "2026-01-06",
                                                    "last_day": "2026-01-07"})
    speak = {"Accept-Language": code}
    for page in (f"/play/{tokens[0]}", f"/play/{tokens[1]}", "/matches/1"):
        text = visible(client.get(page, headers=speak).get_data(as_text=True))
        assert days in text and "Tue 06 Jan" not in text, page


@ON_SQLITE
@pytest.mark.parametrize(("code", "allowance", "wrong"), [
    ("de", "3 Tage für den nächsten Zug", "noch 3 Tage für"),
    ("ja", "次の手に 3日", "次の手に 残り"),
])
def test_an_allowance_is_a_length_not_time_left(settings, client, code, allowance,
                                                wrong) -> None:
    """The waiting seat's clock shows its allowance for its next move ("3 days for the next
    move"), not "3 days left" turned into the reader's language."""
    tokens = create_match("mimic", [ALICE, BOB], {}, settings.secret_key, START,
                          time_control="3d").tokens
    for page in (f"/play/{tokens[0]}", f"/play/{tokens[1]}", "/matches/1"):
        text = visible(client.get(page, headers={"Accept-Language": code})
                       .get_data(as_text=True))
        assert allowance in text and wrong not in text, page
