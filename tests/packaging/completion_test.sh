#!/usr/bin/env bash
# The bash completion (packaging/actorcrawl.bash-completion) completes the
# commands, every flag `actorcrawl --help` lists, the switches' --no- forms,
# each command's own flags and the values it knows, as bash would call it.
#
#   tests/packaging/completion_test.sh BINARY
set -euo pipefail
BINARY=${1:?usage: completion_test.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
COMPLETION=$HERE/../../packaging/actorcrawl.bash-completion
if [ ! -f /usr/share/bash-completion/bash_completion ]; then
  echo "SKIP: bash-completion is not installed (scripts/install-deps.sh --test installs it)"
  exit 0
fi
# shellcheck source=/dev/null
source /usr/share/bash-completion/bash_completion
# shellcheck source-path=SCRIPTDIR source=../../packaging/actorcrawl.bash-completion
source "$COMPLETION"

failures=0
# completions LINE: what completing at the end of LINE offers, one a line.
completions() {
  local line=$1
  COMP_LINE=$line
  COMP_POINT=${#line}
  read -ra COMP_WORDS <<<"$line"
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _actorcrawl "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
# expect LINE WORD...: every WORD is offered.
expect() {
  local line=$1 got
  shift
  got=$(completions "$line")
  for word in "$@"; do
    if ! grep -qxF -- "$word" <<<"$got"; then
      echo "FAIL: '$line' does not offer '$word'; it offers: $(echo "$got" | tr '\n' ' ')"
      failures=$((failures + 1))
    fi
  done
}
# expect_none LINE WORD...: no WORD is offered.
expect_none() {
  local line=$1 got
  shift
  got=$(completions "$line")
  for word in "$@"; do
    if grep -qxF -- "$word" <<<"$got"; then
      echo "FAIL: '$line' offers '$word'"
      failures=$((failures + 1))
    fi
  done
}

expect "$BINARY " crawl coordinator worker serve trace redrive export parse extract --help --version --man-page
expect "$BINARY cr" crawl
expect_none "$BINARY cr" serve
expect "$BINARY crawl --max-p" --max-pages --max-pages-per-host
expect "$BINARY crawl --no-resp" --no-respect-robots-txt
expect "$BINARY crawl --profile " site domains
expect "$BINARY serve --demo" --demo-web
expect "$BINARY serve --max-c" --max-concurrent-jobs
expect "$BINARY export --format " jsonl csv graphml gexf dot items items-csv changes
expect "$BINARY export --in" --include-new
expect "$BINARY trace --mer" --mermaid
expect "$BINARY redrive --old" --older-than
expect "$BINARY parse --cs" --css
expect "$BINARY parse --max-b" --max-body-bytes
expect "$BINARY extract --fai" --failed
expect "$BINARY extract --bodies" --bodies-dir
expect "$BINARY worker --bodies" --bodies-dir
# Every flag of --help completes, and nothing is offered twice.
all=$(completions "$BINARY crawl --")
while read -r flag; do
  grep -qxF -- "$flag" <<<"$all" || { echo "FAIL: $flag is not offered"; failures=$((failures + 1)); }
done < <("$BINARY" --help | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p')
dupes=$(uniq -d <<<"$all")
[ -z "$dupes" ] || { echo "FAIL: offered twice: $dupes"; failures=$((failures + 1)); }

if [ "$failures" -gt 0 ]; then
  echo "$failures completion checks failed"
  exit 1
fi
echo "completion: all checks passed ($(wc -l <<<"$all") flags of crawl)"
