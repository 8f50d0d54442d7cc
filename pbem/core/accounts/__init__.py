"""Accounts: players and admins, signing in by emailed link, sessions, personal API tokens, the
per-purpose secret keys and rate limits."""
