"""Reply by email to a league's or a ladder's mail: `join`, `leave`, `challenge <name>` and
`standings` (commands stay English), each answered by a mail in the player's language.

Every league or ladder mail carries a reply address of its own, one per (player, league or
ladder): `<local>.league-<id>-<player>-<mac>@…` (or `ladder-…`), the MAC made like a seat's
(`core/matches/seat_links.reply_key`, under the reply-key purpose with its own prefix), so it
cannot be forged for another player or competition. Mail-in reads the key and hands it here
(`install_key_handler`, from `pbem.core.settlers.install`): the commands call the services the
web and the API call (`seasons.py`, `ladders.py`), so a refusal changes nothing.
"""

from __future__ import annotations

import base64
import hmac
import re
from datetime import datetime, timedelta
from typing import Any

from pbem import i18n
from pbem.core.accounts.models import Player
from pbem.core.leagues import describe, ladders, seasons
from pbem.core.leagues.models import Ladder, League
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailin.replies import Action, Letter, Policy, Receipt
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.seat_links import REPLY_MAC_CHARS
from pbem.errors import PbemError
from pbem.i18n import _
from pbem.keys import Purpose, purpose_key

KINDS = ("league", "ladder")
_KEY = re.compile(rf"(league|ladder)-([0-9]{{1,12}})-([0-9]{{1,12}})-"
                  rf"([a-z2-7]{{{REPLY_MAC_CHARS}}})")
MAX_LINE = 200
# Answers that say something went wrong: at most `error_answers_per_hour` a player.
REFUSED = "league_refused"


def reply_key(secret_key: str, kind: str, competition_id: int, player_id: int) -> str:
    message = f"pbem-{kind}-reply:{competition_id}:{player_id}".encode()
    digest = hmac.digest(purpose_key(secret_key, Purpose.REPLY_KEY), message, "sha256")
    mac = base64.b32encode(digest).decode().lower()[:REPLY_MAC_CHARS]
    return f"{kind}-{competition_id}-{player_id}-{mac}"


def key_of(params: dict[str, Any] | None, player: Player | None, secret_key: str) -> str | None:
    """The reply key of a league or ladder mail (its params name the competition), or None
    for any other mail."""
    found = competition_of(params)
    if player is None or found is None:
        return None
    return reply_key(secret_key, found[0], found[1], player.id)


def competition_of(params: dict[str, Any] | None) -> tuple[str, int, str] | None:
    """(kind, id, name) of the league or ladder a mail is about; None for any other mail."""
    for kind in KINDS:
        if params and isinstance(params.get(kind), int):
            return kind, params[kind], str(params.get(f"{kind}_name") or "")
    return None


def thread_root(secret_key: str, kind: str, competition_id: int, player_id: int) -> str:
    """The Message-ID local part every mail of a league or ladder to a player answers (no
    mail carries it: the shared reference threads them). Derived, so nothing is stored, and
    MAC'd so two installations reusing ids never share a thread."""
    message = f"pbem-{kind}-thread:{competition_id}:{player_id}".encode()
    digest = hmac.digest(purpose_key(secret_key, Purpose.REPLY_KEY), message, "sha256")
    return f"pbem.{kind}{competition_id}.p{player_id}.{digest.hex()[:16]}"


def receive_key(letter: Letter, policy: Policy, now: datetime) -> Receipt | None:
    """Mail-in's hook: None when the key is no league's or ladder's (a seat's, say)."""
    found = _KEY.fullmatch((letter.reply_key or "").strip().lower())
    if found is None:
        return None
    kind, competition_id, player_id = found.group(1), int(found.group(2)), int(found.group(3))
    expected = reply_key(policy.secret_key, kind, competition_id, player_id)
    player = Player.get_or_none(Player.id == player_id)
    if player is None or not hmac.compare_digest(expected, found.group(0)):
        return Receipt(Action.UNKNOWN_KEY, "unknown or forged league reply key")
    competition = (League if kind == "league" else Ladder).get_or_none(id=competition_id)
    if competition is None:
        return Receipt(Action.UNKNOWN_KEY, f"the {kind} is gone")
    with i18n.language(player.language, player.timezone):
        return _decide(kind, competition, player, letter, policy, now)


def _decide(kind: str, competition: Any, player: Player, letter: Letter, policy: Policy,
            now: datetime) -> Receipt:
    if letter.automatic:
        return Receipt(Action.AUTOMATIC, letter.automatic)
    if letter.sender and letter.sender in policy.own_addresses:
        return Receipt(Action.AUTOMATIC, "sent by this server (a loop)")
    if policy.require_sender_match and letter.sender != player.email.lower():
        # No backscatter: the sender may be forged, and only the player is ever answered.
        return Receipt(Action.FOREIGN, f"sent from {letter.sender}, not the player's address")
    line = " ".join((letter.first_line or "").strip().strip(".!?`'\"*").split())[:MAX_LINE]
    word, _space, rest = line.partition(" ")
    word = word.lower()
    try:
        said, lines, changed = _run(kind, competition, player, word, rest.strip(), now)
    except PbemError as error:
        answer = _answer(kind, competition, player, letter, policy, now, str(error), [], True)
        return Receipt(Action.REFUSED, f"{line[:60]}: {error}", answer)
    answer = _answer(kind, competition, player, letter, policy, now, said, lines, False)
    return Receipt(Action.COMMAND, word, answer, changed=changed)


def _run(kind: str, competition: Any, player: Player, word: str, rest: str,
         now: datetime) -> tuple[str, list[str], bool]:
    """What the command did, the standings' lines to show, whether anything changed; raises
    PbemError (a clear sentence) for a command that cannot be done."""
    name = competition.name
    if word == "standings" and not rest:
        return _("The standings of %(name)s:", name=name), _standings(kind, competition), False
    if word == "join" and not rest:
        if kind == "league":
            seasons.join(competition.id, player, now)
            return _("You joined %(name)s: the next season seats you.", name=name), [], True
        place = ladders.join(competition.id, player, now)
        return _("You are on %(name)s, in place %(place)s.", name=name, place=place), [], True
    if word == "leave" and not rest:
        (seasons if kind == "league" else ladders).leave(competition.id, player, now)
        return _("You left %(name)s.", name=name), [], True
    if word == "challenge" and rest and kind == "ladder":
        target = {"place": int(rest)} if rest.isdigit() else {"player": rest}
        made = ladders.challenge(competition.id, player, target, now)
        return _("You challenged %(player)s on %(name)s; they have %(days)s days to accept.",
                 player=made.defender.public_name, name=name,
                 days=competition.accept_days), [], True
    raise _Unknown(_help(kind))


class _Unknown(PbemError):
    """A reply that is no command of a league's or ladder's mail."""


def _help(kind: str) -> str:
    if kind == "ladder":
        return _('That is no command here. Reply "join", "leave", "challenge <name>" (or '
                 '"challenge <place>") or "standings" on the first line.')
    return _('That is no command here. Reply "join", "leave" or "standings" on the first '
             'line.')


def _standings(kind: str, competition: Any) -> list[str]:
    if kind == "ladder":
        places = describe.describe_ladder(competition)["places"]
        return [f"{row['place']}. {row['player']}" + (f" ({_('on hold')})" if row["on_hold"]
                                                       else "") for row in places]
    found = describe.describe_league(competition)
    if not found.get("seasons"):
        return [_("No season has started yet.")]
    season = found["seasons"][-1]
    lines = []
    for division in season["divisions"]:
        lines.append(_("Division %(number)s", number=division["number"]))
        lines += [f"{i + 1}. {row['player']}: {row.get('points', 0)}"
                  for i, row in enumerate(division["standings"])]
    return lines


def _answer(kind: str, competition: Any, player: Player, letter: Letter, policy: Policy,
            now: datetime, said: str, lines: list[str], refused: bool) -> str | None:
    """Queue the answer to the player's own address, under their reply; None when they had
    their share of refusals this hour."""
    answer = REFUSED if refused else "league_done"
    if refused and _refusals_within_hour(player, now) >= policy.error_answers_per_hour:
        return None
    parent = letter.message_id if letter.message_id and len(letter.message_id) <= 200 else None
    OutboxMessage.create(
        to_address=player.email, template="league_answer",
        params={kind: competition.id, f"{kind}_name": competition.name, "said": said,
                "lines": lines, "refused": refused, "parent": parent},
        status=MessageStatus.PENDING, next_attempt_at=now, created_at=now)
    return answer


def _refusals_within_hour(player: Player, now: datetime) -> int:
    return (InboundMessage.select()
            .where(InboundMessage.sender == player.email.lower(),
                   InboundMessage.received_at > now - timedelta(hours=1),
                   InboundMessage.answer == REFUSED).count())
