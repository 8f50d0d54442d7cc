"""The one secret key, judged for strength and split into one key per purpose.

Every credential the server hands out (seat links, reply-by-email addresses, sign-in links,
session cookies, unsubscribe links, API tokens, the envelope sender that brings a bounce
back) is signed with its own key, derived as
HMAC-SHA256(secret, "pbem/<purpose>"). A token made for one purpose therefore never passes as
another, and one leaked derived key does not give away the others or the secret itself.

Outside development the secret must carry at least 256 bits: a player holds HMACs of it (their
own link), so a short or guessable secret can be recovered offline from a single email and then
every link and admin session forged.
"""

from __future__ import annotations

import functools
import hmac
import math
import re
import string
from enum import StrEnum

MIN_BITS = 256
HOW_TO_MAKE_ONE = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"

# Words people leave in configuration files; refused in any case and with digits appended.
PLACEHOLDERS = frozenset({
    "changeme", "change-me", "change_me", "changethis", "secret", "secretkey", "secret-key",
    "secret_key", "mysecret", "password", "passwd", "test", "testing", "test-secret-key",
    "dev", "development", "example", "default", "pbem", "key", "admin", "letmein", "qwerty",
    "xxx", "todo", "fixme", "replaceme", "replace-me", "your-secret-key", "insecure",
    "notasecret", "…", "...",
})

# The smallest alphabet holding every character decides the bits per character, so a key is
# never credited with more randomness than its alphabet can hold.
_ALPHABETS = (
    (frozenset(string.digits), 10),
    (frozenset(string.hexdigits.lower()), 16),
    (frozenset(string.hexdigits.upper() + string.digits), 16),
    (frozenset(string.ascii_lowercase + string.digits), 36),
    (frozenset(string.ascii_letters + string.digits + "-_"), 64),
    (frozenset(string.ascii_letters + string.digits + "+/="), 64),
    (frozenset(string.printable.strip()), 94),
)


class Purpose(StrEnum):
    SEAT_LINK = "seat-link"
    REPLY_KEY = "reply-key"
    SIGN_IN = "sign-in"
    SESSION = "session"
    CSRF = "csrf"
    UNSUBSCRIBE = "unsubscribe"
    MAIL_PREFERENCES = "mail-preferences"
    CALENDAR_FEED = "calendar-feed"
    API_TOKEN = "api-token"
    BOUNCE = "bounce"
    FEED = "feed"


@functools.lru_cache(maxsize=64)  # every link in every mail asks again; the answer is fixed
def purpose_key(secret: str, purpose: Purpose) -> bytes:
    """The 32-byte key for one purpose, derived from the configured secret."""
    return hmac.digest(secret.encode(), f"pbem/{Purpose(purpose).value}".encode(), "sha256")


def weakness(secret: str) -> str | None:
    """Why `secret` is too weak to sign links with, or None if it is strong enough."""
    if _is_placeholder(secret):
        return "it is a placeholder"
    bits = estimated_bits(secret)
    if bits < MIN_BITS:
        return (f"it carries about {int(bits)} bits of randomness; at least {MIN_BITS} are "
                "needed (43 URL-safe characters or 64 hex digits)")
    return None


def estimated_bits(secret: str) -> float:
    """A conservative estimate of the randomness in `secret`: length x log2(alphabet), and
    nothing for a key that repeats itself or leans on a few characters."""
    if not secret or _repeats(secret):
        return 0.0
    if max(secret.count(char) for char in set(secret)) * 4 > len(secret):
        return 0.0
    chars = set(secret)
    size = next((size for alphabet, size in _ALPHABETS if chars <= alphabet), 95)
    return len(secret) * math.log2(size)


def _is_placeholder(secret: str) -> bool:
    word = re.sub(r"[0-9]+$", "", secret.strip().lower())
    return word in PLACEHOLDERS


def _repeats(secret: str) -> bool:
    """True if the key is a shorter piece written several times (`abcabcabc…`)."""
    # A string is periodic exactly when it occurs inside itself doubled, minus the ends.
    return secret in (secret + secret)[1:-1]
