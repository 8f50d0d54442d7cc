"""Accounts: players and admins, signing in by emailed link, sessions, personal API tokens and
rate limits."""
