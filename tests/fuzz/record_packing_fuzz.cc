// libFuzzer target for the packed records a worker node and the
// coordinator send each other (core/crawl/record_packing): any bytes, read
// as a packed page row and as a packed lease. The properties:
//
// - nothing crashes, and a string refused leaves the record empty;
// - a record that decodes packs again to bytes that decode to the same
//   record (a number may be spelled in more bytes than it needs, so the
//   bytes themselves may differ; packing again is the comparison).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/crawl/record_packing.h"

namespace {

using namespace actorcrawl;

[[noreturn]] void fail(const char* record, const char* what) {
  std::fprintf(stderr, "record_packing_fuzz: %s: %s\n", record, what);
  std::abort();
}

// `input` read as a Record into `stale` (a record holding something):
// decoded, it survives packing again; refused, `stale` is left empty.
template <class Record, class Pack, class Unpack>
void check(std::string_view input, Record stale, Pack pack, Unpack unpack, const char* name) {
  static const std::string empty = pack(Record{});
  if (unpack(input, stale)) {
    const std::string packed = pack(stale);
    Record again;
    if (!unpack(packed, again) || pack(again) != packed)
      fail(name, "does not survive packing again");
  } else if (pack(stale) != empty) {
    fail(name, "refused, left something behind");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto pack_row = [](const PageRow& row) { return pack_page_row(row); };

  PageRow row;
  row.url = "stale";
  row.links.push_back("stale", false, false);
  check(input, row, pack_row, unpack_page_row, "a row");

  CrawlJob job;
  job.url = "stale";
  job.hop_urls = {"stale"};
  check(input, job, pack_crawl_job, unpack_crawl_job, "a lease");
  return 0;
}
