"""The shared frame games draw their boards in: `grid` (a square board's SVG frame: squares,
coordinates, highlights, click targets, kept per shape) and `table` (a square board as an
HTML table, for email: Gmail and Outlook show no SVG). Each game draws its own pieces in its
folder's `board.py`; `pbem.templating` gives every template environment both."""
