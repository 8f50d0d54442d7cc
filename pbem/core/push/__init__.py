"""Web push: browsers' subscriptions, each player's channel per kind of news, and the push
outbox (see README.md)."""
