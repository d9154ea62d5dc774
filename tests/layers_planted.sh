#!/usr/bin/env bash
# tests/layers.sh fails where it must: on a copy of core/ with one include
# planted against the layers (a header of a higher core folder, included
# for its types alone, which no linker would notice), it exits 1 naming
# the file and the folder; the same copy without the plant passes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/core" "$tmp/core"
fail() { echo "layers_planted: $*"; exit 1; }

out=$(bash "$here/layers.sh" "$tmp" 2>&1) || fail "the unplanted copy fails: $out"

# web/ sits below setup/: a header of setup/ in web/ breaks the layers.
printf '#include "core/setup/crawl_setup.h"\n' >>"$tmp/core/web/url.h"
out=$(bash "$here/layers.sh" "$tmp" 2>&1) && fail "a planted include of core/setup/ in core/web/ passed: $out"
grep -q "core/web/url.h: includes core/setup/, which core/web/ may not use" <<<"$out" ||
  fail "the planted include is not named: $out"

# Folders beside each other are no better: extract/ does not link store/.
cp -r "$root/core/web/url.h" "$tmp/core/web/url.h"
printf '#include "core/store/crawl_store.h"\n' >>"$tmp/core/extract/css_selector.cc"
out=$(bash "$here/layers.sh" "$tmp" 2>&1) && fail "an include of core/store/ in core/extract/ passed: $out"
grep -q "core/extract/css_selector.cc: includes core/store/" <<<"$out" || fail "not named: $out"

# The actors' homes keep to themselves: the Frontier's policy may not
# reach into the Processor's (frontier/ and page/ both sit on crawl/), nor
# the shared words into any actor's.
cp -r "$root/core/extract/css_selector.cc" "$tmp/core/extract/css_selector.cc"
printf '#include "core/page/link_scope.h"\n' >>"$tmp/core/frontier/trap_guard.h"
out=$(bash "$here/layers.sh" "$tmp" 2>&1) && fail "an include of core/page/ in core/frontier/ passed: $out"
grep -q "core/frontier/trap_guard.h: includes core/page/" <<<"$out" || fail "not named: $out"
cp -r "$root/core/frontier/trap_guard.h" "$tmp/core/frontier/trap_guard.h"
printf '#include "core/hosts/host_scheduler.h"\n' >>"$tmp/core/crawl/records.h"
out=$(bash "$here/layers.sh" "$tmp" 2>&1) && fail "an include of core/hosts/ in core/crawl/ passed: $out"
grep -q "core/crawl/records.h: includes core/hosts/" <<<"$out" || fail "not named: $out"
cp -r "$root/core/crawl/records.h" "$tmp/core/crawl/records.h"

# A folder no library declares is refused too.
mkdir "$tmp/core/grabbag" && printf 'int x;\n' >"$tmp/core/grabbag/x.cc"
out=$(bash "$here/layers.sh" "$tmp" 2>&1) && fail "an undeclared folder passed: $out"
grep -q "core/grabbag/: no library" <<<"$out" || fail "not named: $out"
echo "layers.sh refuses each planted include"
