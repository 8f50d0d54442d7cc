"""The server's VAPID key pair (RFC 8292): it signs every push, and browsers subscribe with
its public half (`GET /api/push/key`), so a subscription accepts pushes from this server only.

The private key is the setting `vapid_private_key` (a PEM text, or the path of a PEM file);
without it, `pbem init` makes one in the instance folder (`vapid_private_key.pem`, readable by
its owner only) and every process reads it from there. It never goes into the database.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid

from pbem.addresses import parse_sender
from pbem.config import Settings

FILE_NAME = "vapid_private_key.pem"


def key_file(settings: Settings) -> Path:
    return Path(settings.instance_path) / FILE_NAME


def make_key_if_missing(settings: Settings) -> Path | None:
    """Make the instance's key file if no key is configured and none exists; its path, or
    None when nothing was made."""
    if settings.vapid_private_key:
        return None
    path = key_file(settings)
    if path.exists():
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    vapid = Vapid()
    vapid.generate_keys()
    pem = vapid.private_pem()
    # Created readable by its owner only, never for a moment by anyone else.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as written:
        written.write(pem)
    return path


def vapid_for(settings: Settings) -> Vapid | None:
    """The configured or made key, or None (push is off until `pbem init` makes one)."""
    return _load(settings.vapid_private_key, str(key_file(settings)))


def public_key(settings: Settings) -> str | None:
    """The public key as browsers take it (`applicationServerKey`): the uncompressed P-256
    point, base64url without padding."""
    vapid = vapid_for(settings)
    if vapid is None:
        return None
    raw = vapid.public_key.public_bytes(serialization.Encoding.X962,
                                        serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def subject(settings: Settings) -> str:
    """Who the push services may contact about this server's pushes (RFC 8292 `sub`)."""
    if settings.vapid_subject:
        return settings.vapid_subject
    return f"mailto:{parse_sender(settings.mail_from)[1]}"


# Read once per process (a key found; none found is looked for again, as `pbem init` may
# make it meanwhile).
_LOADED: dict[tuple[str, str], Vapid] = {}


def _load(configured: str, fallback: str) -> Vapid | None:
    if (configured, fallback) in _LOADED:
        return _LOADED[configured, fallback]
    text = configured.strip()
    if text.startswith("-----BEGIN"):
        vapid = Vapid.from_pem(text.encode())
    else:
        path = Path(text or fallback)
        if not path.is_file():
            return None
        vapid = Vapid.from_pem(path.read_bytes())
    _LOADED[configured, fallback] = vapid
    return vapid
