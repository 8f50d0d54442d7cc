"""Mail out: which mails a change queues, for whom and when (preferences, the digest), signed
links in them, and what a queued mail shows when it is rendered."""
