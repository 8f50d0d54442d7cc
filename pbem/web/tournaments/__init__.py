"""Tournaments on the web: the JSON API and the pages."""
