#include "core/crawl/transient_failure.h"

#include <algorithm>
#include <array>

namespace actorcrawl {

bool is_transient_failure(std::string_view reason) {
  static constexpr std::array<std::string_view, 6> kTransient = {
    "dns_failure", "connect_failed", "timeout", "connection_reset", "transfer_failed", "robots_unreachable"};
  if (std::find(kTransient.begin(), kTransient.end(), reason) != kTransient.end())
    return true;
  // http_5xx and http_429: the server, not the URL, is in trouble.
  constexpr std::string_view kHttp = "http_";
  if (reason.size() != kHttp.size() + 3 || reason.substr(0, kHttp.size()) != kHttp)
    return false;
  const auto code = reason.substr(kHttp.size());
  return code == "429" || (code[0] == '5' && code[1] >= '0' && code[1] <= '9' && code[2] >= '0' && code[2] <= '9');
}

std::chrono::milliseconds park_delay(std::chrono::milliseconds host_backoff, std::uint32_t attempt) {
  const std::uint32_t doublings = std::min<std::uint32_t>(attempt > 0 ? attempt - 1 : 0, 6);
  return host_backoff * (std::int64_t{1} << doublings);
}

}  // namespace actorcrawl
