#include "core/page/processor_page_counts.h"

namespace actorcrawl {

void ProcessorPageCounts::add(std::uint64_t took, std::uint64_t failed) {
  for (std::size_t i = 0; took != 0 && i < ProcessorChain::kMaxProcessors; ++i, took >>= 1, failed >>= 1) {
    if ((took & 1) == 0)
      continue;
    if (pages_.size() <= i) {
      pages_.resize(i + 1, 0);
      failed_.resize(i + 1, 0);
    }
    ++pages_[i];
    failed_[i] += static_cast<std::int64_t>(failed & 1);
  }
}

std::vector<ProcessorTally> processor_tallies(const std::vector<std::string>& names,
                                              const std::vector<std::int64_t>& pages,
                                              const std::vector<std::int64_t>& failed) {
  std::vector<ProcessorTally> out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out.push_back(ProcessorTally{names[i], i < pages.size() ? pages[i] : 0, i < failed.size() ? failed[i] : 0});
  return out;
}

}  // namespace actorcrawl
