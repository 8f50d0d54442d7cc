"""Ratings: one openskill Plackett-Luce rating per player and game, settled by the door."""
