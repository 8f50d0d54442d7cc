"""Plain-text drawings of a Mimic Taking view and one-line event descriptions, for email."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.games.base import Event
from pbem.games.mimic_taking.cards import arithmetic, colour_name
from pbem.i18n import N_, _, ngettext

HOW = {
    "trump": N_("the trump %(card)s"),
    "closest": N_("%(card)s, the closest to the lead"),
    "reference": N_("%(card)s: nobody followed its colour"),
    "mimics": N_("the last mimic: every card was a mimic"),
}


def label(seat: int) -> str:
    return _("Player %(number)s", number=seat + 1)


def _names(seats: Sequence[int]) -> str:
    names = [label(s) for s in seats]
    if len(names) == 1:
        return names[0]
    return _("%(first)s and %(last)s", first=_(" and ").join(names[:-1]), last=names[-1])


def describe(event: Event) -> str:
    """An event in a line of the reader's language (its kind's words when it has none)."""
    words = _DESCRIBERS.get(event.kind)
    return words(event.data) if words else event.kind.replace("_", " ")


def _played(data: Mapping[str, Any]) -> str:
    return _("%(player)s played %(card)s", player=label(data["seat"]), card=data["card"])


def _trick_won(data: Mapping[str, Any]) -> str:
    how = _(HOW[data["how"]], card=data["card"])
    cards = " ".join(data["cards"])
    if data["chooses"]:
        return _("%(player)s wins the trick %(cards)s with %(how)s, and chooses which cards "
                 "to keep", player=label(data["seat"]), cards=cards, how=how)
    return _("%(player)s wins the trick %(cards)s with %(how)s, and takes all %(count)s "
             "cards", player=label(data["seat"]), cards=cards, how=how,
             count=len(data["cards"]))


def _took(data: Mapping[str, Any]) -> str:
    if data["cards"] is not None:
        kept = " ".join(data["cards"]) or _("nothing")
        return _("%(player)s kept %(kept)s from the trick", player=label(data["seat"]),
                 kept=kept)
    return _("%(player)s kept %(count)s of the %(total)s cards", player=label(data["seat"]),
             count=data["count"], total=data["of"])


def _took_cards(data: Mapping[str, Any]) -> str:
    kept = " ".join(data["kept"]) or _("nothing")
    aside = " ".join(data["set_aside"]) or _("nothing")
    return _("%(player)s kept %(kept)s and set aside %(aside)s", player=label(data["seat"]),
             kept=kept, aside=aside)


def _round_ending(data: Mapping[str, Any]) -> str:
    return _("Round %(round)s ends: everyone now chooses, in secret, whether to add their "
             "last card to their stack", round=data["round"])


def _last_card_chosen(data: Mapping[str, Any]) -> str:
    return _("%(player)s has chosen what to do with their last card",
             player=label(data["seat"]))


def _last_card_choice(data: Mapping[str, Any]) -> str:
    # Worded for any reader: once the match is over every seat and spectator sees it.
    if data["choice"] == "add":
        return _("%(player)s chose to add it to their stack (%(card)s)",
                 player=label(data["seat"]), card=data["card"])
    return _("%(player)s chose to set it aside (%(card)s)", player=label(data["seat"]),
             card=data["card"])


def _last_cards_revealed(data: Mapping[str, Any]) -> str:
    choices = []
    for s, (choice, card) in enumerate(zip(data["choices"], data["cards"], strict=True)):
        if choice == "add":
            choices.append(_("%(player)s adds %(card)s", player=label(s), card=card))
        else:
            choices.append(_("%(player)s discards %(card)s", player=label(s), card=card))
    return _("Last cards: %(cards)s", cards=", ".join(choices))


def _round_scored(data: Mapping[str, Any]) -> str:
    seats = "; ".join(_seat_summary(entry) for entry in data["seats"])
    totals = ", ".join(str(t) for t in data["totals"])
    return _("Round %(round)s scored: %(seats)s. Totals: %(totals)s", round=data["round"],
             seats=seats, totals=totals)


def _round_started(data: Mapping[str, Any]) -> str:
    return _("Round %(round)s is dealt; %(player)s leads", round=data["round"],
             player=label(data["leader"]))


def _game_over(data: Mapping[str, Any]) -> str:
    return _("Game over: %(result)s", result=result_words(
        data["winners"], max(data["totals"]), None))


def _salt_added(data: Mapping[str, Any]) -> str:
    if data["own"]:
        return _("%(player)s added the salt %(salt)r", player=label(data["seat"]),
                 salt=data["salt"])
    return _("%(player)s took the salt %(salt)r", player=label(data["seat"]), salt=data["salt"])


_DESCRIBERS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "salt_added": _salt_added, "played": _played, "trick_won": _trick_won, "took": _took,
    "took_cards": _took_cards,
    "round_ending": _round_ending, "last_card_chosen": _last_card_chosen,
    "last_card_choice": _last_card_choice, "last_cards_revealed": _last_cards_revealed,
    "round_scored": _round_scored, "round_started": _round_started, "game_over": _game_over,
}


def result_words(winners: Sequence[int], best: int, rounds: int | None) -> str:
    """Who won and with what; with `rounds`, the whole sentence of the match's result."""
    names = _names(sorted(winners))
    if rounds is None:
        if len(winners) == 1:
            return _("%(names)s wins with %(points)s points", names=names, points=best)
        return _("%(names)s share the win with %(points)s points", names=names, points=best)
    if len(winners) == 1:
        return _("%(names)s wins with the highest total, %(points)s points, after %(rounds)s "
                 "rounds", names=names, points=best, rounds=rounds)
    return _("%(names)s share the win with the highest total, %(points)s points, after "
             "%(rounds)s rounds", names=names, points=best, rounds=rounds)


def _seat_summary(entry: Mapping[str, Any]) -> str:
    # The arithmetic is re-derived in the reader's language (a stored summary holds English).
    taken = entry["mimics"] > 0 or any(entry["by_colour"].values())
    return _("%(player)s %(stack)s, %(arithmetic)s", player=label(entry["seat"]),
             stack=stack_words(entry), arithmetic=arithmetic(entry["counts"], taken))


def stack_words(entry: Mapping[str, Any]) -> str:
    """A stack by colour with the mimics' placing, e.g. "O1 O4 | B2 B3 (+1 mimic as brown)"."""
    groups = [" ".join(cards) for cards in entry["by_colour"].values() if cards]
    text = " | ".join(groups) if groups else _("no coloured cards")
    if entry["assignment"]:
        placed = ", ".join(_("%(count)s as %(colour)s", count=n, colour=colour_name(c))
                           for c, n in entry["assignment"].items())
        return _("%(stack)s (mimics: %(placed)s)", stack=text, placed=placed)
    if entry["mimics"]:
        return ngettext("%(stack)s (%(num)s mimic, no colour)",
                        "%(stack)s (%(num)s mimics, no colour)", entry["mimics"], stack=text)
    return text


def render(view: Mapping[str, Any], over: bool = False) -> str:
    """The view as text; `over`: the match ended before the game did (nobody is to move)."""
    lines = _table(view, over)
    labels = view["labels"]
    if view["stacks"] is not None:
        for seat, stack in enumerate(view["stacks"]):
            lines.append(_("Stack of %(player)s: %(cards)s", player=labels[seat],
                           cards=" ".join(stack) or "-"))
    lines.extend(_trick_lines(view, over))
    lines.extend(_salt_lines(view, over))
    if view["last_round"] is not None:
        lines.append(_("Last round:"))
        lines.extend(f"  {_seat_summary(entry)}" for entry in view["last_round"])
    if view["hand"] is not None and view["hand"]:
        lines.append(_("Your hand: %(cards)s", cards=" ".join(view["hand"])))
    if view["chosen"] is not None and not over:
        waiting = [labels[s] for s, done in enumerate(view["chosen"]) if not done]
        if waiting:
            lines.append(_("Last card: waiting for %(players)s", players=", ".join(waiting)))
        else:
            lines.append(_("Last card: done"))
        if view["my_choice"]:
            lines.append(_("You chose: %(choice)s", choice=view["my_choice"]))
    if view["result"]:
        lines.append(view["result"])
    elif over:
        lines.append(_("Match over."))
    return "\n".join(lines)


def _table(view: Mapping[str, Any], over: bool) -> list[str]:
    """The title and a row a seat: hand and stack sizes, score, each round's points, and who
    leads, moves and reads."""
    labels = view["labels"]
    if view["face_up"]:
        title = _("Mimic Taking, round %(round)s of %(rounds)s (face-up stacks)",
                  round=view["round"], rounds=view["rounds"])
    else:
        title = _("Mimic Taking, round %(round)s of %(rounds)s", round=view["round"],
                  rounds=view["rounds"])
    lines = [title]
    width = max(len(name) for name in labels)
    heads = (_("hand"), _("stack"), _("score"), _("rounds"))
    hand_w, stack_w, score_w = max(4, len(heads[0])), max(5, len(heads[1])), max(5, len(heads[2]))
    lines.append(f"{'':{width}}  {heads[0]:>{hand_w}}  {heads[1]:>{stack_w}}  "
                 f"{heads[2]:>{score_w}}  {heads[3]}")
    for seat, name in enumerate(labels):
        rounds = " ".join(f"{row[seat]:+d}" for row in view["round_scores"]) or "-"
        marks = []
        if seat == view["leader"] and view["phase"] in ("play", "keep"):
            marks.append(_("leads"))
        if seat in view["to_move"] and not over:
            marks.append(_("to move"))
        if seat == view["seat"]:
            marks.append(_("you"))
        note = f"  <- {', '.join(marks)}" if marks else ""
        lines.append(f"{name:{width}}  {view['hand_sizes'][seat]:{hand_w}}  "
                     f"{view['stack_sizes'][seat]:{stack_w}}  {view['totals'][seat]:{score_w}}  "
                     f"{rounds}{note}")
    return lines


def _trick_lines(view: Mapping[str, Any], over: bool) -> list[str]:
    """The previous trick, the current one and whether its winner still chooses."""
    labels = view["labels"]
    lines = []
    previous = view["previous_trick"]
    if previous is not None:
        lines.append(_("Previous trick: %(trick)s -> won by %(player)s",
                       trick=_trick(previous["cards"], labels),
                       player=labels[previous["winner"]]))
    if view["phase"] in ("play", "keep"):
        lines.append(_("Current trick: %(trick)s",
                       trick=_trick(view["trick"], labels) or _("(no card yet)")))
    if view["keeper"] is not None and not over:
        lines.append(_("%(player)s won with a trump and chooses cards to keep",
                       player=labels[view["keeper"]]))
    return lines


def _salt_lines(view: Mapping[str, Any], over: bool) -> list[str]:
    """While the first deal waits for salts: who has added one, and this seat's offer."""
    if view.get("phase") != "salt" or over:
        return []
    labels, salts = view["labels"], view["salts"]
    waiting = [labels[s] for s, salt in enumerate(salts) if salt is None]
    lines = [_("Nothing is dealt yet: waiting for the salts of %(players)s",
               players=", ".join(waiting))]
    lines.extend(_("Salt of %(player)s: %(salt)r", player=labels[s], salt=salt)
                 for s, salt in enumerate(salts) if salt is not None)
    if view.get("my_offered_salt"):
        lines.append(_("Add your own salt with 'salt' and any text, or 'salt' alone to take "
                       "%(salt)r.", salt=view["my_offered_salt"]))
    return lines


def _trick(cards: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> str:
    return ", ".join(f"{labels[entry['seat']]} {entry['card']}" for entry in cards)
