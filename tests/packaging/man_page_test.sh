#!/usr/bin/env bash
# The manual page the build writes (cmake/Packaging.cmake) is the binary's
# --help: it renders without a warning from groff or man, and names every
# configuration key, every flag of --help and of each command's own help.
#
#   tests/packaging/man_page_test.sh BINARY MAN_PAGE_GZ
set -euo pipefail
BINARY=${1:?usage: man_page_test.sh BINARY MAN_PAGE_GZ}
PAGE=${2:?usage: man_page_test.sh BINARY MAN_PAGE_GZ}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gzip -dc "$PAGE" >"$work/actorcrawl.1"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The page is what the binary says now (the build rewrote it with the binary).
"$BINARY" --man-page | cmp -s - "$work/actorcrawl.1" || fail "$PAGE differs from $BINARY --man-page"

warnings=$(groff -man -ww -z "$work/actorcrawl.1" 2>&1 || true)
[ -z "$warnings" ] || fail "groff warns: $warnings"
if command -v man >/dev/null; then
  MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$work/actorcrawl.1" >"$work/rendered.txt" 2>"$work/man-warnings.txt" ||
    fail "man -l failed: $(cat "$work/man-warnings.txt")"
  [ ! -s "$work/man-warnings.txt" ] || fail "man warns: $(cat "$work/man-warnings.txt")"
else
  groff -man -Tutf8 "$work/actorcrawl.1" >"$work/rendered.txt"
fi
# Searched in the page's source, where each entry's text is one line (the
# rendered text breaks lines anywhere); its minus signs are \-.
text=$(sed 's/\\-/-/g' "$work/actorcrawl.1")

while read -r key; do
  grep -qF -- "[$key, default" <<<"$text" || fail "key $key is not in the page"
done < <("$BINARY" --default-config | sed -n 's/^\([a-z_0-9]*\):.*/\1/p')
for command in "" serve trace redrive export parse; do
  # shellcheck disable=SC2086
  while read -r flag; do
    grep -qF -- "$flag" <<<"$text" || fail "flag $flag of '$command --help' is not in the page"
  done < <("$BINARY" $command --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
done
for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS ENVIRONMENT "EXIT STATUS" FILES "SEE ALSO"; do
  grep -qE "^\.SH \"?$section\"?$" <<<"$text" || fail "no $section section"
done

if [ "$failures" -gt 0 ]; then
  echo "$failures manual page checks failed"
  exit 1
fi
echo "man page: renders cleanly, $(grep -c '^\.TP' "$work/actorcrawl.1") entries"
