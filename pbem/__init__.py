"""pbem: a play-by-email server for abstract board games and card games."""
