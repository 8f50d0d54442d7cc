"""The toy game: a tic-tac-toe written by docs/ADDING_A_GAME.md alone, kept so the guide cannot
drift. Its folder (`tic_tac_toe/`) is what the guide's step 1 makes under `pbem/games/`, its
templates are in tests/support/templates/games/tic-tac-toe/ (step 2), and `plugin.py` makes
the guide's edits outside the folder (the registry's line, the strength entry) for a test run
of its own, which tests/games/test_toy_game.py starts. It never reaches the production
registry, pages or API."""
