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

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "record_packing_fuzz: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  static const std::string empty_row = pack_page_row(PageRow{});
  static const std::string empty_job = pack_crawl_job(CrawlJob{});

  PageRow row;
  row.url = "stale";
  row.links.push_back("stale", false, false);
  if (unpack_page_row(input, row)) {
    const std::string packed = pack_page_row(row);
    PageRow again;
    if (!unpack_page_row(packed, again) || pack_page_row(again) != packed)
      fail("a row does not survive packing again");
  } else if (pack_page_row(row) != empty_row) {
    fail("a refused row left something behind");
  }

  CrawlJob job;
  job.url = "stale";
  job.hop_urls = {"stale"};
  if (unpack_crawl_job(input, job)) {
    const std::string packed = pack_crawl_job(job);
    CrawlJob again;
    if (!unpack_crawl_job(packed, again) || pack_crawl_job(again) != packed)
      fail("a lease does not survive packing again");
  } else if (pack_crawl_job(job) != empty_job) {
    fail("a refused lease left something behind");
  }
  return 0;
}
