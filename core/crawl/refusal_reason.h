// What the reason a URL was refused (frontier.refusal, url_refused) means
// to whoever started the crawl, and what lifts it. Used where a refusal
// ends a crawl or a job: when every seed was refused, the error says why in
// words, not only the reason's name.
#pragma once

#include <string>

namespace actorcrawl {

// "private_address" -> "its address is private, loopback or link-local
// (private_address): ...". An unknown reason is named as it is.
std::string explain_refusal(const std::string& reason);

}  // namespace actorcrawl
