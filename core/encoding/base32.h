// RFC 4648 base32 (A-Z, 2-7, '=' padding): how WARC, and the crawl's page
// digests after it, spell a SHA-1 ("sha1:" + base32).
#pragma once

#include <string>
#include <string_view>

namespace actorcrawl {

std::string base32(std::string_view bytes);

}  // namespace actorcrawl
