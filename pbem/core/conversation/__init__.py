"""Talk at the board: match chat (the players' room and the spectators' room), private notes
per seat, players' block lists and chat mutes, reports and moderation. See README.md."""
