"""Links in account mails (sign-in, invitations), derived at send time from the row ids in
an outbox row's params, so the outbox never holds a usable token."""

from __future__ import annotations

from typing import Any

from pbem.config import Settings
from pbem.core.accounts.models import SignInLink
from pbem.core.accounts.signin import link_token
from pbem.core.lobby.challenges import invite_token
from pbem.core.lobby.models import Invite
from pbem.core.mailout.models import OutboxMessage


def account_links(settings: Settings, message: OutboxMessage) -> dict[str, Any]:
    base = settings.base_url
    context = message.params or {}
    links: dict[str, Any] = {"me_url": f"{base}/me", "settings_url": f"{base}/me/settings",
                             "signin_url": f"{base}/signin"}
    if "sign_in_link" in context:
        link = SignInLink.get_by_id(context["sign_in_link"])
        links["sign_in_url"] = f"{base}/signin/{link_token(settings.secret_key, link)}"
    if "invite" in context:
        invite = Invite.get_by_id(context["invite"])
        url = f"{base}/invites/{invite_token(settings.secret_key, invite)}"
        links.update(invite_url=url, never_url=f"{url}/never")
    if "challenge" in context:
        links["challenge_url"] = f"{base}/challenges/{context['challenge']}"
    return links
