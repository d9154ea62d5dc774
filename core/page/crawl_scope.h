// How far from its seeds a site crawl may go (key `scope`), as an enum;
// LinkScope (link_scope.h) applies it. Apart from it so what only reads the
// name (a job body's check) needs neither RE2 nor the public suffix list.
#pragma once

#include <optional>
#include <string_view>

namespace actorcrawl {

// The values:
//   domain  the seeds' registrable domains (www.example.com admits
//           blog.example.com) -- the default
//   host    the seeds' hosts only, on any port
//   any     every http(s) URL: the crawl is bounded by max_pages and
//           max_depth alone (seed 000's breadth-first crawl)
// allowed_domains, when given, narrows each: a URL must also be within it.
// For `domain` it replaces the seeds' registrable domains, which is how a
// crawl of several sites names them.
enum class CrawlScope { domain, host, any };
const char* to_string(CrawlScope scope);
// "domain", "host" or "any"; nothing for any other text.
std::optional<CrawlScope> parse_crawl_scope(std::string_view text);

}  // namespace actorcrawl
