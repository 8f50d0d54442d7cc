"""The games on the web: the list and each game's rules page."""
