#!/usr/bin/env bash
# The layer rules of docs/architecture.md's map, checked on the includes:
# each folder includes only itself and the folders below it, and CAF
# appears only from messages/ up. (The linker keeps core/'s own layers:
# each of its libraries links only the ones below it.)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
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
  while IFS= read -r hit; do
    file=${hit%%:*}
    target=$(sed -E 's/.*#include "([^/"]+)\/.*/\1/' <<<"$hit")
    if [[ " $allowed " != *" $target "* ]]; then
      echo "${file#"$root"/}: includes $target/, which $dir/ may not use (docs/architecture.md, Map)"
      status=1
    fi
  done < <(grep -rnE '#include "[^/"]+/' "$root/$dir" --include='*.h' --include='*.cc')
done
if hits=$(grep -rn '#include <caf/' "$root/core" --include='*.h' --include='*.cc'); then
  echo "core/ includes CAF:"
  echo "$hits"
  status=1
fi
[ $status = 0 ] && echo "every include keeps the layers"
exit $status
