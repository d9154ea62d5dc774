// "Tell this once per host": remembers the hosts a note was given for, so
// that a site of a thousand truncated pages says it once, not a thousand
// times. Bounded: past kMaxHosts it stops remembering and answers false
// (the notes stop; the pages themselves are still marked). Safe from
// several threads at once (the Processor's lanes share one).
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_set>

namespace actorcrawl {

class OncePerHost {
 public:
  static constexpr std::size_t kMaxHosts = 10000;

  // True the first time `host_key` is given, while fewer than kMaxHosts
  // were; false after.
  bool first(const std::string& host_key);

 private:
  std::mutex mutex_;
  std::unordered_set<std::string> told_;
};

}  // namespace actorcrawl
