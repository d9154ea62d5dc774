// A stable 64-bit fingerprint of a normalized URL. The seen-set keeps these
// instead of strings (8 bytes a URL); the same function is used when the
// set is rebuilt from the database on resume, so it must never change.
// With 64 bits, the chance of any collision among 10 million URLs is ~3e-6.
#pragma once

#include <cstdint>
#include <string_view>

namespace actorcrawl {

std::uint64_t url_fingerprint(std::string_view normalized_url);

}  // namespace actorcrawl
