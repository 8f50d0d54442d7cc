#!/usr/bin/env bash
# Bring the catalogs up to date with the code: extract every marked sentence into
# messages.pot, merge it into each language's messages.po (new sentences arrive untranslated,
# sentences no longer in the code are dropped), then compile the .mo files the server reads.
# Run from anywhere: `bash pbem/translations/update.sh`. See docs/TRANSLATING.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYBABEL="${PYBABEL:-$(dirname "$(command -v python3)")/pybabel}"
[ -x .venv/bin/pybabel ] && PYBABEL=.venv/bin/pybabel
here=pbem/translations
"$PYBABEL" -q extract -F "$here/babel.cfg" -k _ -k gettext -k ngettext:1,2 -k pgettext:1c,2 -k lazy_gettext -k N_ -k NP_:1c,2 \
  --no-location --sort-output -o "$here/messages.pot" .
for code in de ja; do
  if [ ! -f "$here/$code/LC_MESSAGES/messages.po" ]; then
    "$PYBABEL" -q init -i "$here/messages.pot" -d "$here" -l "$code"
  fi
  "$PYBABEL" -q update -i "$here/messages.pot" -d "$here" -l "$code" \
    --no-fuzzy-matching --ignore-obsolete --no-wrap
done
"$PYBABEL" compile -d "$here" --statistics
