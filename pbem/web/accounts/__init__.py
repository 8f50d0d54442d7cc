"""Accounts on the web: who is signed in, signing in by emailed link, the player's home and
settings, and the players' JSON API."""
