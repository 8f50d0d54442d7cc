"""Email addresses: one check for players, admins and the server's From line."""

from __future__ import annotations

import pytest

from pbem.addresses import AddressError, check_address, parse_sender
from pbem.errors import InvalidRequestError


@pytest.mark.parametrize(("text", "address"), [
    (" Ann@Example.ORG ", "ann@example.org"),
    ("first.last+games@sub.example.co.uk", "first.last+games@sub.example.co.uk"),
    ("jürgen@beispiel.de", "jürgen@beispiel.de"),
])
def test_ordinary_addresses_are_kept_lower_cased(text: str, address: str) -> None:
    assert check_address(text) == address


@pytest.mark.parametrize(("text", "why"), [
    ("=?utf-8?q?ann=40example.org?=@evil.example", "encoded words"),
    ("ann@=?utf-8?b?ZXhhbXBsZS5vcmc=?=", "encoded words"),
    ("=?iso-8859-1?q?a?=@b.org", "encoded words"),
    ("ann\r\n@example.org", "control characters"),
    ("ann\x00@example.org", "control characters"),
    ("ann@example", "not an email address"),
    ("Ann <ann@example.org>", "not an email address"),
    ("ann@example.org, ben@example.org", "not an email address"),
    ("a" * 250 + "@b.org", "not an email address"),
    ("", "not an email address"),
    # Group syntax: a mail library reads "x:bob@example.org" as a group "x" holding bob's
    # address, so the mail would go to someone other than the address shown.
    ("x:bob@example.org", "group"),
    ("team: bob@example.org;", "group"),
    ("ann@exa:mple.org", "group"),
])
def test_strange_addresses_are_refused_with_a_reason(text: str, why: str) -> None:
    with pytest.raises(AddressError, match="not an email address") as refused:
        check_address(text)
    assert why in str(refused.value)
    assert isinstance(refused.value, InvalidRequestError)  # a 400 on the web, status 2 in a shell


def test_a_sender_is_a_name_and_one_address() -> None:
    assert parse_sender("Jeux <Jeux@Example.fr>") == ("Jeux", "jeux@example.fr")
    assert parse_sender("pbem@localhost") == ("", "pbem@localhost")
    for text in ("a@b.org, c@d.org", "=?utf-8?q?Bank?= <x@y.org>", "x <a@b.org>\nBcc: c@d.org"):
        with pytest.raises(AddressError):
            parse_sender(text)


def test_a_match_refuses_an_encoded_word_address_before_writing_anything(db_url: str) -> None:
    from pbem.core.accounts.models import Player
    from pbem.core.matches.creation import create_match
    from pbem.core.matches.models import Match
    from tests.conftest import START

    with pytest.raises(InvalidRequestError, match="encoded words"):
        create_match("mimic", ["ann@example.org", "=?utf-8?q?ann=40example.org?=@evil.example"],
                     {}, "test-secret-key", START)
    assert Match.select().count() == Player.select().count() == 0
