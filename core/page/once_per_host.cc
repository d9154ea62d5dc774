#include "core/page/once_per_host.h"

namespace actorcrawl {

bool OncePerHost::first(const std::string& host_key) {
  std::lock_guard<std::mutex> lock{mutex_};
  if (told_.size() >= kMaxHosts)
    return false;
  return told_.insert(host_key).second;
}

}  // namespace actorcrawl
