"""Matches: the one door every change goes through, moves, a match's life, rulings, clocks and
deadlines, the deadline sweep, vacations, seat links and match creation."""
