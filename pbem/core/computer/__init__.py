"""Computer opponents: starting a match against the computer, and the worker's computer moves."""
