"""Tournaments: round robins, Swiss, knockouts and Mimic Taking tables, run by the server."""
