// The two kinds of crawl the topology runs. They share every actor; what
// differs (the frontier, link selection, resume, what progress counts) is
// chosen once from this value, in core/, behind interfaces (CrawlFrontier,
// LinkSelector), so no actor branches on it.
//   site     URL-level BFS from the seeds, in scope on their domains
//   domains  domain-graph discovery: a node per host, its root page fetched
#pragma once

#include <optional>
#include <string_view>

namespace actorcrawl {

enum class CrawlProfile { site, domains };

const char* to_string(CrawlProfile profile);
// "site" or "domains"; nothing for any other text.
std::optional<CrawlProfile> parse_crawl_profile(std::string_view text);

}  // namespace actorcrawl
