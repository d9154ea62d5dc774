#!/usr/bin/env bash
# The layer rules of docs/architecture.md's map, checked on the includes:
# each folder includes only itself and the folders below it, and CAF
# appears only from messages/ up. Inside core/, each folder includes only
# itself and the folders its library links, as core/CMakeLists.txt
# declares them (transitively): the linker keeps the libraries' layers for
# what is compiled, but not for a header included for its inline code or
# its types alone.
#
#   tests/layers.sh [ROOT]    # ROOT: the tree to check (default: this one)
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
status=0
# folder: what it may include besides itself
rules=(
  "main:service runtime actors instrument messages core demoweb"
  "service:runtime actors instrument messages core"
  "runtime:actors instrument messages core"
  "actors:instrument messages core"
  "instrument:messages core"
  "messages:core"
  "core:"
  "demoweb:"
  "testweb:demoweb"
)
for rule in "${rules[@]}"; do
  dir=${rule%%:*}
  allowed="$dir ${rule#*:}"
  [ -d "$root/$dir" ] || continue
  while IFS= read -r hit; do
    file=${hit%%:*}
    target=$(sed -E 's/.*#include "([^/"]+)\/.*/\1/' <<<"$hit")
    if [[ " $allowed " != *" $target "* ]]; then
      echo "${file#"$root"/}: includes $target/, which $dir/ may not use (docs/architecture.md, Map)"
      status=1
    fi
  done < <(grep -rnE '#include "[^/"]+/' "$root/$dir" --include='*.h' --include='*.cc')
done
# core/'s folders, in the order core/CMakeLists.txt declares their
# libraries: folder -> the core libraries it links.
declare -A links
while read -r folder deps; do
  links[$folder]=$deps
done < <(tr '\n' ' ' <"$root/core/CMakeLists.txt" | grep -oE 'actorcrawl_core_library\([^)]*\)' |
  sed -E 's/^actorcrawl_core_library\(//; s/\)$//' |
  awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) if ($i ~ /^actorcrawl_/) printf " %s", substr($i, 12); print "" }')
# Every folder a core folder may include: itself and its links' closure.
reach() {
  local -A seen=()
  local todo=("$1") f d
  while [ ${#todo[@]} -gt 0 ]; do
    f=${todo[0]}
    todo=("${todo[@]:1}")
    [ -n "${seen[$f]:-}" ] && continue
    seen[$f]=1
    for d in ${links[$f]:-}; do todo+=("$d"); done
  done
  echo "${!seen[@]}"
}
for path in "$root"/core/*/; do
  folder=$(basename "$path")
  if [ -z "${links[$folder]+declared}" ]; then
    echo "core/$folder/: no library of core/CMakeLists.txt (actorcrawl_core_library) declares it"
    status=1
    continue
  fi
  allowed=" $(reach "$folder") "
  while IFS= read -r hit; do
    file=${hit%%:*}
    target=$(sed -E 's/.*#include "core\/([^/"]+)\/.*/\1/' <<<"$hit")
    if [[ "$allowed" != *" $target "* ]]; then
      echo "${file#"$root"/}: includes core/$target/, which core/$folder/ may not use (it links:${links[$folder]:- nothing}; core/CMakeLists.txt)"
      status=1
    fi
  done < <(grep -rnE '#include "core/[^/"]+/' "$path" --include='*.h' --include='*.cc')
done
if hits=$(grep -rn '#include <caf/' "$root/core" --include='*.h' --include='*.cc'); then
  echo "core/ includes CAF:"
  echo "$hits"
  status=1
fi
[ $status = 0 ] && echo "every include keeps the layers"
exit $status
