#!/usr/bin/env bash
# docs/architecture.md's map must name every source file of the layered
# folders: a file added without a line there fails this test, so the map
# stays the one-hop guide to where a behaviour lives.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
doc="$root/docs/architecture.md"
map=$(sed -n '/^## Map$/,/^## /p' "$doc")
missing=0
checked=0
for dir in core/web core/fetch core/sitemap core/crawl core/frontier core/hosts core/page core/extract core/plugin core/setup core/clock core/encoding core/config core/report core/store core/export core/warc core/trace messages instrument actors runtime service main demoweb testweb; do
  if ! grep -q "\`$dir/\`" <<<"$map"; then
    echo "docs/architecture.md: the map has no row for $dir/"
    missing=$((missing + 1))
  fi
  for f in "$root/$dir"/*.h "$root/$dir"/*.cc "$root/$dir"/*.sql; do
    [ -e "$f" ] || continue
    checked=$((checked + 1))
    name=$(basename "$f"); name=${name%.*}
    if ! grep -q "\`$name\`\|\`$name\.sql\`" <<<"$map"; then
      echo "docs/architecture.md: the map does not name $dir/$(basename "$f")"
      missing=$((missing + 1))
    fi
  done
done
if [ "$missing" -gt 0 ]; then
  echo "$missing missing; $checked files checked"
  exit 1
fi
echo "the map names all $checked source files"
