"""Following a match without mail: presence (the page's live updates say who is looking)."""
