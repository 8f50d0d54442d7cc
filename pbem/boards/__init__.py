"""Drawing boards: the SVG boards of the web pages and the HTML-table boards of email.

The templates in `templates/games/<game>/` lay a board out and word its captions; the parts
drawn once per square or per piece are built here in Python, where a loop costs a fraction of
a template's (a board of a hundred squares is most of a page's rendering otherwise):

- `grid`: a square board's frame (squares, coordinates, highlights, click targets), kept;
- one module per game for its pieces (`mimic`, `eximo`, `frozen_forest`, `move_in_synch`),
  and the cells of its email table where a template loop would build them (`mimic_taking`:
  its cards in email);
- `table`: a square board as an HTML table, for email (Gmail and Outlook show no SVG).

`install(env)` gives a Jinja environment (the web app's, the mail composer's) all of them.
"""

from __future__ import annotations

import jinja2

from pbem.boards import eximo, frozen_forest, grid, mimic, mimic_taking, move_in_synch, table


def install(env: jinja2.Environment) -> jinja2.Environment:
    env.globals.update(
        board_svg=grid.svg, board_table=table.board_table,
        mimic_pieces=mimic.pieces, eximo_pieces=eximo.pieces,
        frozen_forest_pieces=frozen_forest.pieces, move_in_synch_pieces=move_in_synch.pieces,
        mimic_cells=mimic.cells, eximo_cells=eximo.cells, frozen_forest_cells=frozen_forest.cells,
        move_in_synch_cells=move_in_synch.cells,
        mimic_taking_card=mimic_taking.card, mimic_taking_cards=mimic_taking.cards,
    )
    return env
