"""One key per purpose, derived from the one configured secret.

Seat links, reply keys, sign-in links, sessions, unsubscribe links and calendar feeds each sign
with their own key, so a token made for one purpose is worthless for another, and no key is
ever stored: each is derived again from the secret when needed.
"""

from __future__ import annotations

import hashlib
import hmac


def purpose_key(secret: str, purpose: str) -> bytes:
    """The 32-byte key for `purpose` (a short fixed name such as "unsubscribe")."""
    return hmac.new(secret.encode(), f"pbem-key:{purpose}".encode(), hashlib.sha256).digest()
