"""Who is looking at a match right now (see README.md)."""
