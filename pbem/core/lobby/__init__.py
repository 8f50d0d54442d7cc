"""The lobby: challenges between players who know each other, open seeks anyone may join,
and their expiry."""
