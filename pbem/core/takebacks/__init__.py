"""Takebacks: a seat asks to take back its last move, the others accept or decline; the
accepted takeback is a change through the door that records what it took back."""
