// libFuzzer target for the packed links a worker node sends the
// coordinator (core/crawl/link_packing): any bytes, read both as packed
// link rows and as packed followed links. The properties:
//
// - nothing crashes, and a string refused leaves its vector empty;
// - what decodes packs again to bytes that decode to the same links
//   (a length may be spelled in more bytes than it needs, so the bytes
//   themselves may differ);
// - every followed link decoded, looked up in a row built from the link
//   rows, either names a place the row has or is refused: never read past.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/crawl/followed_links.h"
#include "core/crawl/link_packing.h"

namespace {

using namespace actorcrawl;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "link_packing_fuzz: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  LinkList rows{LinkRow{"stale", false, false}};
  if (unpack_link_rows(input, rows)) {
    LinkList again;
    if (!unpack_link_rows(pack_link_rows(rows), again) || rows != again)
      fail("link rows do not survive packing again");
  } else if (!rows.empty()) {
    fail("refused link rows left behind");
  }

  std::vector<FollowedLink> followed{FollowedLink{3, 3, "stale", "stale"}};
  if (unpack_followed_links(input, followed)) {
    std::vector<FollowedLink> again;
    if (!unpack_followed_links(pack_followed_links(followed), again) || followed != again)
      fail("followed links do not survive packing again");
    PageRow row;
    row.url = "http://a.test/";
    row.host_key = "a.test";
    row.links = rows;
    row.link_host_keys = {"b.test", "c.test"};
    for (const auto& link : followed) {
      const auto target = followed_target(row, link);
      if (!target)
        continue;
      if (link.link >= 0 && static_cast<std::size_t>(link.link) >= row.links.size())
        fail("a link position past the row was read");
      if (link.host >= 0 && static_cast<std::size_t>(link.host) >= row.link_host_keys.size())
        fail("a host position past the row was read");
      if (target->url.empty() || target->host_key.empty())
        fail("an empty target was given");
    }
  } else if (!followed.empty()) {
    fail("refused followed links left behind");
  }
  return 0;
}
