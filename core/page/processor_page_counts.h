// The pages each processor of the chain took and failed on over a run,
// counted from the stored pages' bits (PageRow::processors_took and
// processors_failed), so the count is whole however many nodes processed
// the pages: the Storage adds every page it writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/page/page_processor.h"

namespace actorcrawl {

class ProcessorPageCounts {
 public:
  void add(std::uint64_t took, std::uint64_t failed);
  // By the processor's place in the chain, as long as the last one counted.
  const std::vector<std::int64_t>& pages() const { return pages_; }
  const std::vector<std::int64_t>& failed() const { return failed_; }

 private:
  std::vector<std::int64_t> pages_;
  std::vector<std::int64_t> failed_;
};

// The chain's processors (by name, in order) with their counts.
std::vector<ProcessorTally> processor_tallies(const std::vector<std::string>& names,
                                              const std::vector<std::int64_t>& pages,
                                              const std::vector<std::int64_t>& failed);

}  // namespace actorcrawl
