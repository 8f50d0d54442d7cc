"""Atom feeds: read models over matches, tournaments and the chat (see README.md)."""
