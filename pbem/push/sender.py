"""Drain the push outbox (`core/push/queue.py`): claim due pushes under a lease, write each in
its player's language, encrypt it for its browser (RFC 8291, aes128gcm) and sign it with the
server's VAPID key (RFC 8292) through `pywebpush`, and record what the push service said.

Each push carries `Urgency` (a turn is high: phones deliver it at once; a result normal) and
`Topic` (one per match and seat, so a newer push about the match replaces one the phone has
not fetched yet). A 404 or 410 means the browser dropped the subscription: it is forgotten
(and its pushes with it). 429, a 5xx or no answer: tried again with backoff. Another 4xx is a
push the service will never take: recorded as failed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import requests
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from pbem import i18n
from pbem.config import Settings
from pbem.core.matches.models import Match, Seat
from pbem.core.matches.seat_links import token_for
from pbem.core.push import queue, subscriptions
from pbem.core.push.models import PushMessage
from pbem.games import get_rules
from pbem.i18n import _
from pbem.push.keys import subject, vapid_for

LEASE = timedelta(seconds=60)
BATCH = 50
TIMEOUT_SECONDS = 10
TTL_SECONDS = 24 * 3600  # a push older than a day is no news: the mail has told it
URGENCY = {"your_turn": "high", "reminder": "high", "result": "normal"}


@dataclass(frozen=True)
class PushReport:
    sent: int = 0
    retrying: int = 0
    failed: int = 0
    gone: int = 0  # subscriptions the push service said were gone (404, 410)


Post = Callable[..., Any]


def deliver_due(settings: Settings, now: datetime, post: Post = webpush) -> PushReport:
    """Send one claimed batch of due pushes. Nothing is claimed while there is no key."""
    vapid = vapid_for(settings)
    if vapid is None:
        return PushReport()
    sent = retrying = failed = gone = 0
    claimed = queue.claim(now, BATCH, LEASE)
    if not claimed:
        return PushReport()
    # One session for the batch: its pushes to one push service share a connection.
    with requests.Session() as session:
        outcomes = [(message, _send(settings, vapid, message, session, post))
                    for message in claimed]
    for message, outcome in outcomes:
        if outcome == "sent":
            queue.record_sent(message, now)
            sent += 1
        elif outcome == "gone":
            subscriptions.forget(message.subscription_id)
            gone += 1
        elif queue.record_failure(message, outcome[1], outcome[0] == "retry", now):
            retrying += 1
        else:
            failed += 1
    return PushReport(sent, retrying, failed, gone)


def _send(settings: Settings, vapid: Vapid, message: PushMessage,
          session: requests.Session, post: Post) -> Any:
    subscription = message.subscription
    try:
        data = json.dumps(_payload(settings, message), separators=(",", ":"))
        post(subscription_info={"endpoint": subscription.endpoint,
                                "keys": {"p256dh": subscription.p256dh,
                                         "auth": subscription.auth}},
             data=data, vapid_private_key=vapid, vapid_claims={"sub": subject(settings)},
             headers={"Urgency": URGENCY.get(message.template, "normal"),
                      "Topic": f"m{message.match_id}s{message.seat}"},
             ttl=TTL_SECONDS, timeout=TIMEOUT_SECONDS, requests_session=session)
    except WebPushException as error:
        status = error.status_code
        if status in (404, 410):
            return "gone"
        temporary = status is None or status == 429 or status >= 500
        return ("retry" if temporary else "failed", f"push service answered {status}")
    except requests.RequestException as error:
        return ("retry", f"push service unreachable: {error!r}")
    return "sent"


def _payload(settings: Settings, message: PushMessage) -> dict[str, Any]:
    """What the notification says, in the player's language, and the seat's page to open."""
    seat = (Seat.select(Seat, Match).join(Match)
            .where(Seat.match == message.match_id, Seat.seat == message.seat).first())
    if seat is None:
        return {"title": "pbem", "body": "", "url": settings.base_url + "/me"}
    player = seat.player
    with i18n.language(player.language, player.timezone):
        named = _("%(game)s #%(id)s", game=get_rules(seat.match.game).title, id=seat.match_id)
        words = {"your_turn": _("Your turn: %(match)s", match=named),
                 "reminder": _("Reminder: still your turn in %(match)s", match=named),
                 "result": _("The match is over: %(match)s", match=named)}
        title = words.get(message.template, named)
        body = _("Open the match to see the position.")
    url = f"{settings.base_url}/play/{token_for(settings.secret_key, seat)}"
    return {"title": title, "body": body, "url": url, "tag": f"m{message.match_id}"}
