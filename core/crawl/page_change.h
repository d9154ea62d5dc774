// What a fetch of a page says about it compared with what the crawl stored
// from its previous fetch: the change a revisit records, and what
// `export --format changes` lists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace actorcrawl {

// The names (to_string) are stored in the database and exported, so they
// are a contract: new, changed, unchanged, gone, failed.
enum class PageChange {
  new_page,   // "new": nothing was stored from an answer before
  changed,    // "changed": another body or status than the stored one, or back after being gone
  unchanged,  // "unchanged": 304 Not Modified, the same body and status, or gone again
  gone,       // "gone": 404 or 410 where a page was
  failed,     // "failed": the fetch says nothing about the page; the stored row still holds
};

const char* to_string(PageChange change);
std::optional<PageChange> parse_page_change(std::string_view name);

// The page as stored from its last fetch that got an answer.
struct StoredPage {
  bool exists = false;           // there is such a fetch (a row with a response)
  std::int32_t status_code = 0;  // its final status
  std::string digest;            // content_digest of its body; "" when not kept
};

// What this fetch got.
struct RefetchResult {
  bool answered = false;         // a response arrived (no FetchError)
  std::int32_t status_code = 0;  // the final status
  bool not_modified = false;     // FetchOutcome::not_modified: a 304 to our validators
  std::string digest;            // content_digest of the body as kept; "" when not computed
};

// The rule, first match wins:
//   no answer, or a status that says nothing about the page (5xx, 429, a
//   4xx other than 404 and 410, a 304 nobody asked for)        -> failed
//   304 to the stored page's validators                         -> unchanged
//   nothing stored from an answer before                        -> new
//   404 or 410: the stored page was gone already -> unchanged, else gone
//   other statuses (2xx, 3xx): back after being gone, or another status
//   than the stored one -> changed; the same digest -> unchanged; another
//   digest, or either unknown ("": nothing proves them equal) -> changed
// A body cut at max_body_bytes is compared as cut: a change past the cut
// goes unseen (the stored body is cut at the same place).
PageChange classify_change(const StoredPage& before, const RefetchResult& now);

// 404 Not Found and 410 Gone: the page is not there (a definite answer).
bool is_gone_status(std::int32_t status);

}  // namespace actorcrawl
