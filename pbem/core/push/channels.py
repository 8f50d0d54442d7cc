"""Which channel tells a player each kind of news: mail, push, or both. With no browser
subscribed, mail (whatever was chosen); with one and no choice made, both."""

from __future__ import annotations

from pbem.core.db.prepared import Prepared, ReadAhead
from pbem.core.push.models import PushChoice
from pbem.core.push.subscriptions import has_subscription, has_subscription_ahead
from pbem.errors import InvalidRequestError
from pbem.i18n import N_, _

MAIL, PUSH, BOTH = "mail", "push", "both"
CHANNELS = (MAIL, PUSH, BOTH)
CHANNEL_WORDS = {MAIL: N_("mail only"), PUSH: N_("push only"), BOTH: N_("push and mail")}
# The kinds of news a push can tell, by the mail templates that tell them.
KINDS = {"turns": ("your_turn", "reminder"), "results": ("result",)}
KIND_WORDS = {"turns": N_("Your turn and reminders"), "results": N_("Results")}
KIND_OF = {template: kind for kind, templates in KINDS.items() for template in templates}


def channel_for(player_id: int, template: str, subscribed: bool | None = None) -> str:
    """How the player hears news told by mail template `template`. `subscribed`: whether a
    browser of theirs takes pushes, if the caller read it already."""
    kind = KIND_OF.get(template)
    if subscribed is None:
        subscribed = kind is not None and has_subscription(player_id)
    if kind is None or not subscribed:
        return MAIL
    chosen = (PushChoice.select(PushChoice.channel)
              .where(PushChoice.player == player_id, PushChoice.kind == kind).scalar())
    return chosen if chosen in CHANNELS else BOTH


def choices_of(player_id: int) -> dict[str, str]:
    """The player's channel per kind (their choice, or both)."""
    chosen = dict(_CHOICES.rows(player_id))
    return {kind: chosen.get(kind, BOTH) for kind in KINDS}


def choices_ahead(player_id: int) -> list[ReadAhead]:
    """What /me reads for its push controls, to send ahead with its other reads."""
    return [_CHOICES.ahead(player_id), has_subscription_ahead(player_id)]


_CHOICES = Prepared(lambda player_id: PushChoice.select(PushChoice.kind, PushChoice.channel)
                    .where(PushChoice.player == player_id).tuples())


def choose(player_id: int, kind: str, channel: str) -> None:
    if kind not in KINDS or channel not in CHANNELS:
        raise InvalidRequestError(_("Choose mail, push or both for each kind of news."))
    updated = (PushChoice.update(channel=channel)
               .where(PushChoice.player == player_id, PushChoice.kind == kind).execute())
    if not updated:
        PushChoice.insert(player=player_id, kind=kind, channel=channel).on_conflict_ignore() \
            .execute()
