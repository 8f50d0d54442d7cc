"""Leagues (seasons of divisions, promotion and relegation) and ladders (places and challenges)."""
