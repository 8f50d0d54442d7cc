"""Plain-text drawings of a Mimic Taking view and one-line event descriptions, for email."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import Event
from pbem.games.mimic_taking.cards import COLOUR_NAMES

HOW = {
    "trump": "the trump {card}",
    "closest": "{card}, the closest to the lead",
    "reference": "{card}: nobody followed its colour",
    "mimics": "the last mimic: every card was a mimic",
}


def label(seat: int) -> str:
    return f"Player {seat + 1}"


def describe(event: Event) -> str:
    data = event.data
    kind = event.kind
    if kind == "played":
        return f"{label(data['seat'])} played {data['card']}"
    if kind == "trick_won":
        how = HOW[data["how"]].format(card=data["card"])
        cards = " ".join(data["cards"])
        then = ("chooses which cards to keep" if data["chooses"]
                else f"takes all {len(data['cards'])} cards")
        return f"{label(data['seat'])} wins the trick {cards} with {how}, and {then}"
    if kind == "took":
        if data["cards"] is not None:
            kept = " ".join(data["cards"]) or "nothing"
            return f"{label(data['seat'])} kept {kept} from the trick"
        return f"{label(data['seat'])} kept {data['count']} of the {data['of']} cards"
    if kind == "took_cards":
        kept = " ".join(data["kept"]) or "nothing"
        aside = " ".join(data["set_aside"]) or "nothing"
        return f"{label(data['seat'])} kept {kept} and set aside {aside}"
    if kind == "round_ending":
        return (f"Round {data['round']} ends: everyone now chooses, in secret, whether to add "
                "their last card to their stack")
    if kind == "last_card_chosen":
        return f"{label(data['seat'])} has chosen what to do with their last card"
    if kind == "last_card_choice":
        # Worded for any reader: once the match is over every seat and spectator sees it.
        what = "add it to their stack" if data["choice"] == "add" else "set it aside"
        return f"{label(data['seat'])} chose to {what} ({data['card']})"
    if kind == "last_cards_revealed":
        return "Last cards: " + ", ".join(
            f"{label(s)} {'adds' if choice == 'add' else 'discards'} {card}"
            for s, (choice, card) in enumerate(zip(data["choices"], data["cards"], strict=True)))
    if kind == "round_scored":
        seats = "; ".join(_seat_summary(entry) for entry in data["seats"])
        totals = ", ".join(str(t) for t in data["totals"])
        return f"Round {data['round']} scored: {seats}. Totals: {totals}"
    if kind == "round_started":
        return f"Round {data['round']} is dealt; {label(data['leader'])} leads"
    if kind == "game_over":
        names = " and ".join(label(s) for s in data["winners"])
        verb = "wins" if len(data["winners"]) == 1 else "share the win"
        return f"Game over: {names} {verb} with {max(data['totals'])} points"
    return kind.replace("_", " ")


def _seat_summary(entry: Mapping[str, Any]) -> str:
    return f"{label(entry['seat'])} {stack_words(entry)}, {entry['arithmetic']}"


def stack_words(entry: Mapping[str, Any]) -> str:
    """A stack by colour with the mimics' placing, e.g. "O1 O4 | B2 B3 (+1 mimic as brown)"."""
    groups = [" ".join(cards) for cards in entry["by_colour"].values() if cards]
    text = " | ".join(groups) if groups else "no coloured cards"
    if entry["assignment"]:
        placed = ", ".join(f"{n} as {COLOUR_NAMES[c]}" for c, n in entry["assignment"].items())
        text += f" (mimics: {placed})"
    elif entry["mimics"]:
        text += f" ({entry['mimics']} mimic{'s' if entry['mimics'] > 1 else ''}, no colour)"
    return text


def render(view: Mapping[str, Any]) -> str:
    labels = view["labels"]
    title = f"Mimic Taking, round {view['round']} of {view['rounds']}"
    lines = [title + (" (face-up stacks)" if view["face_up"] else "")]
    width = max(len(name) for name in labels)
    lines.append(f"{'':{width}}  hand  stack  score  rounds")
    for seat, name in enumerate(labels):
        rounds = " ".join(f"{row[seat]:+d}" for row in view["round_scores"]) or "-"
        marks = []
        if seat == view["leader"] and view["phase"] in ("play", "keep"):
            marks.append("leads")
        if seat in view["to_move"]:
            marks.append("to move")
        if seat == view["seat"]:
            marks.append("you")
        note = f"  <- {', '.join(marks)}" if marks else ""
        lines.append(f"{name:{width}}  {view['hand_sizes'][seat]:4}  "
                     f"{view['stack_sizes'][seat]:5}  {view['totals'][seat]:5}  {rounds}{note}")
    if view["stacks"] is not None:
        for seat, stack in enumerate(view["stacks"]):
            lines.append(f"Stack of {labels[seat]}: {' '.join(stack) or '-'}")
    previous = view["previous_trick"]
    if previous is not None:
        lines.append(f"Previous trick: {_trick(previous['cards'], labels)}"
                     f" -> won by {labels[previous['winner']]}")
    if view["phase"] in ("play", "keep"):
        lines.append(f"Current trick: {_trick(view['trick'], labels) or '(no card yet)'}")
    if view["keeper"] is not None:
        lines.append(f"{labels[view['keeper']]} won with a trump and chooses cards to keep")
    if view["last_round"] is not None:
        lines.append("Last round:")
        lines.extend(f"  {_seat_summary(entry)}" for entry in view["last_round"])
    if view["hand"] is not None and view["hand"]:
        lines.append(f"Your hand: {' '.join(view['hand'])}")
    if view["chosen"] is not None:
        waiting = [labels[s] for s, done in enumerate(view["chosen"]) if not done]
        lines.append("Last card: " + (f"waiting for {', '.join(waiting)}" if waiting else "done"))
        if view["my_choice"]:
            lines.append(f"You chose: {view['my_choice']}")
    if view["result"]:
        lines.append(view["result"])
    return "\n".join(lines)


def _trick(cards: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> str:
    return ", ".join(f"{labels[entry['seat']]} {entry['card']}" for entry in cards)
