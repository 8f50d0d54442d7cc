#!/usr/bin/env python3
"""Check a pbem match record's committed deals, with nothing but Python's standard library.

    python3 verify_record.py record.json

Download `record.json` from a finished match's page. This script recomputes the commitment
from the revealed seed, deals every round again from the seed and the seats' salts, and
checks that every card played was in its player's hand, in that round's deal, and that the
first card was led by the seat the deal drew. It prints "verified" and exits 0, or prints
each difference and exits 1. (`pbem verify record.json` checks the same and replays every
rule of the game as well.)

The scheme, "pbem-deal-v1", is written out in pbem's docs (players, "Fair play"); in short:
commitment = SHA-256(seed bytes + match id in ASCII digits); the stream of a deal is
HMAC-SHA-256(key=seed, LP("pbem-deal-v1") LP(label) LP(salt 0) ... LP(salt n-1) counter),
LP = 4-byte big-endian length + UTF-8, counter = 8-byte big-endian block number; numbers are
drawn from its 4-byte words by rejection sampling, and the deck is shuffled by Fisher-Yates.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys

SCHEME = "pbem-deal-v1"
COLOURS = "OBPG"
HAND_SIZE = {3: 12, 4: 10}
ROUNDS = {3: 5, 4: 4}


class Stream:
    def __init__(self, seed: bytes, salts: list[str], label: str) -> None:
        parts = [SCHEME, label, *salts]
        self.key = seed
        self.prefix = b"".join(len(p.encode()).to_bytes(4, "big") + p.encode() for p in parts)
        self.counter = 0
        self.words: list[int] = []

    def word(self) -> int:
        if not self.words:
            block = hmac.new(self.key, self.prefix + self.counter.to_bytes(8, "big"),
                             hashlib.sha256).digest()
            self.counter += 1
            self.words = [int.from_bytes(block[i:i + 4], "big") for i in range(28, -1, -4)]
        return self.words.pop()

    def below(self, n: int) -> int:
        limit = 2**32 - 2**32 % n
        while True:
            w = self.word()
            if w < limit:
                return w % n


def deal(seed: bytes, salts: list[str], players: int, round_number: int):
    """Each seat's hand for a round, and the leader drawn after the shuffle."""
    top = 8 if players == 3 else 9
    cards = [f"{c}{n}" for c in COLOURS for n in range(1, top + 1)] + ["M"] * 4
    stream = Stream(seed, salts, f"mimic-taking round {round_number}")
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    size = HAND_SIZE[players]
    hands = [cards[s * size:(s + 1) * size] for s in range(players)]
    return hands, stream.below(players)


def verify(record: dict) -> list[str]:
    """Every difference found (empty: verified)."""
    if record.get("format") != "pbem-record" or record.get("game") != "mimic-taking":
        return ["this is not a pbem record of a Mimic Taking match"]
    if record.get("deal_scheme") != SCHEME:
        return [f"its deals do not name the scheme {SCHEME!r} "
                f"(deal_scheme: {record.get('deal_scheme')!r})"]
    text = record.get("deal_seed")
    try:
        seed = bytes.fromhex(text)
    except (TypeError, ValueError):
        return [f"deal_seed {text!r} is not hexadecimal (is the match over?)"]
    if len(seed) != 32:
        return [f"deal_seed has {len(seed)} bytes, not 32"]
    problems = []
    named = record.get("deal_match", record.get("match"))
    computed = hashlib.sha256(seed + str(named).encode("ascii")).hexdigest()
    if computed != record.get("deal_commitment"):
        problems.append(f"the commitment is {record.get('deal_commitment')!r}, but SHA-256 of "
                        f"the seed and match {named} is {computed!r}")
    players = len(record.get("players", []))
    salts = record.get("deal_salts")
    if players not in HAND_SIZE:
        return [*problems, f"a Mimic Taking match has 3 or 4 players, not {players}"]
    if not isinstance(salts, list) or len(salts) != players:
        return [*problems, f"deal_salts must list {players} salts, one per seat"]
    return problems + _check_plays(record["moves"], seed, salts, players)


def _check_salts(moves: list, seed: bytes, salts: list[str]) -> list[str]:
    """A salt move names the seat's own salt ("salt my text"), or ("salt") takes the one
    the seed gave it: HMAC-SHA-256(seed, "pbem salt " + seat)'s first 16 hex digits."""
    problems = []
    for ply, move in enumerate(moves, start=1):
        text, seat = move.get("text") or "", move.get("seat")
        if text.split(" ", 1)[0] != "salt" or not isinstance(seat, int):
            continue
        own = text[len("salt"):].strip()
        given = own or hmac.new(seed, b"pbem salt " + str(seat).encode("ascii"),
                                hashlib.sha256).hexdigest()[:16]
        if not 0 <= seat < len(salts) or salts[seat] != given:
            problems.append(f"move {ply}: seat {seat}'s salt is {given!r}, but deal_salts "
                            f"says {salts[seat] if 0 <= seat < len(salts) else None!r}")
    return problems


def _check_plays(moves: list, seed: bytes, salts: list[str], players: int) -> list[str]:
    per_round = players * (HAND_SIZE[players] - 1)
    round_number, played, choices = 1, 0, 0
    hands, leader = deal(seed, salts, players, 1)
    problems = _check_salts(moves, seed, salts)
    dealt = [(ply, move) for ply, move in enumerate(moves, start=1)
             if (move.get("text") or "").split(" ", 1)[0] != "salt"]
    if dealt and dealt[0][1].get("seat") != leader:
        return [*problems, f"the deal drew seat {leader} to lead first, but the first "
                           f"card is seat {dealt[0][1].get('seat')}'s"]
    for ply, move in dealt:
        text, seat = move.get("text") or "", move.get("seat")
        if text in ("add", "discard"):
            choices += 1
            if choices == players and round_number < ROUNDS[players]:
                round_number, played, choices = round_number + 1, 0, 0
                hands, _ = deal(seed, salts, players, round_number)
            continue
        if text.startswith("take"):
            continue
        if not isinstance(seat, int) or not 0 <= seat < players:
            return [*problems, f"move {ply} names no seat"]
        if played >= per_round:
            return [*problems, f"move {ply} ({text}) plays a card after round "
                               f"{round_number}'s last trick"]
        if text not in hands[seat]:
            return [*problems,
                    f"move {ply}: seat {seat} plays {text}, which round {round_number}'s "
                    f"deal did not give it (its cards then: {' '.join(sorted(hands[seat]))})"]
        hands[seat].remove(text)
        played += 1
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python3 verify_record.py record.json", file=sys.stderr)
        return 1
    try:
        with open(argv[1], encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError) as error:
        print(f"cannot read {argv[1]}: {error}", file=sys.stderr)
        return 1
    problems = verify(record) if isinstance(record, dict) else ["the file is not a record"]
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("verified")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
