"""A match on the web: a seat's private page and its actions, the board's click data, the public
match pages and the match JSON API."""
