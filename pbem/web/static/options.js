// Option forms (challenges, seeks): show only the chosen game's options, and keep the others'
// fields out of the form. Without this script every game's options show, each in a fieldset
// named for its game, and the server reads only the chosen game's.
"use strict";
for (const select of document.querySelectorAll("select[data-options-for]")) {
  const form = select.form;
  const sync = () => {
    for (const set of form.querySelectorAll("fieldset.game-options")) {
      const mine = set.dataset.game === select.value;
      set.hidden = !mine;
      set.disabled = !mine;
    }
  };
  select.addEventListener("change", sync);
  sync();
}
