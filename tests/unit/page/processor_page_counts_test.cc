// A run's pages per processor, counted from the bits of the stored pages:
// the same whichever node processed them.
#include "core/page/processor_page_counts.h"

#include <catch2/catch.hpp>

using namespace actorcrawl;

TEST_CASE("processor page counts: each page's bits, by the processor's place in the chain",
          "[processor_page_counts]") {
  ProcessorPageCounts counts;
  counts.add(0b101, 0b100);
  counts.add(0b001, 0);
  counts.add(0, 0);  // a page no processor took (not HTML)
  CHECK(counts.pages() == std::vector<std::int64_t>{2, 0, 1});
  CHECK(counts.failed() == std::vector<std::int64_t>{0, 0, 1});
  counts.add(std::uint64_t{1} << 63, std::uint64_t{1} << 63);
  CHECK(counts.pages().size() == 64);
  CHECK(counts.failed()[63] == 1);
  const auto tallies = processor_tallies({"html_links", "extract", "jsonld", "wordcount"}, {2, 0, 1}, {0, 0, 1});
  REQUIRE(tallies.size() == 4);
  CHECK(tallies[2].processor == "jsonld");
  CHECK(tallies[2].pages == 1);
  CHECK(tallies[2].failed == 1);
  CHECK(tallies[3].pages == 0);
}
