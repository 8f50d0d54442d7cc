"""Leagues and ladders on the web: pages and the JSON API."""
