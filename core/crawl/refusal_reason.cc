#include "core/crawl/refusal_reason.h"

#include "core/crawl/transient_failure.h"

namespace actorcrawl {

std::string explain_refusal(const std::string& reason) {
  if (reason == "private_address")
    return "its address is private, loopback or link-local (private_address), which this crawl fetches only for "
           "the hosts its user named (seeds, sitemap_urls, resolve): crawl with --allow-private-networks (and "
           "without --block-private-networks), or start the service with --allow-private-networks";
  if (reason == "robots_txt")
    return "robots.txt disallows it for this user agent (robots_txt); respect_robots_txt: false ignores robots.txt "
           "(only for sites you may crawl so)";
  if (reason == "robots_unreachable")
    return "its host's robots.txt could not be fetched (robots_unreachable), so neither was it";
  if (reason == "max_url_length" || reason == "max_repeated_path_segments" || reason == "max_pages_per_host" ||
      reason == "max_query_variants_per_path" || reason == "max_subdomains_per_root")
    return "a crawler-trap limit refused it (" + reason + "); raise " + reason + " to let it through";
  if (reason == "redirect_loop" || reason == "too_many_redirects" || reason == "bad_redirect")
    return "its redirects lead nowhere fetchable (" + reason + ")";
  if (is_transient_failure(reason))
    return "it could not be reached (" + reason + "); it is parked and tried again on the next run";
  return "refused (" + reason + ")";
}

}  // namespace actorcrawl
