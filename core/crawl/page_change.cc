#include "core/crawl/page_change.h"

namespace actorcrawl {

const char* to_string(PageChange change) {
  switch (change) {
    case PageChange::new_page: return "new";
    case PageChange::changed: return "changed";
    case PageChange::unchanged: return "unchanged";
    case PageChange::gone: return "gone";
    case PageChange::failed: return "failed";
  }
  return "failed";
}

std::optional<PageChange> parse_page_change(std::string_view name) {
  for (PageChange c : {PageChange::new_page, PageChange::changed, PageChange::unchanged, PageChange::gone,
                       PageChange::failed})
    if (name == to_string(c))
      return c;
  return std::nullopt;
}

bool is_gone_status(std::int32_t status) { return status == 404 || status == 410; }

namespace {

// A status that is an answer about the page itself. The others — server
// errors, 429, refusals such as 401 and 403 — describe the server's state
// or its view of us, and may not hold next time.
bool speaks_for_page(std::int32_t status) {
  return (status >= 200 && status < 400) || is_gone_status(status);
}

}  // namespace

PageChange classify_change(const StoredPage& before, const RefetchResult& now) {
  if (!now.answered || !speaks_for_page(now.status_code))
    return PageChange::failed;
  // A 304 to the stored validators: the stored page stands. A 304 nobody
  // asked for (no validators went) is stored as the answer it is, a page
  // with that status and no body, and classified like any other answer:
  // the URL's first is new, after a 200 it is a change.
  if (now.status_code == 304 && now.not_modified)
    return before.exists ? PageChange::unchanged : PageChange::failed;
  if (!before.exists)
    return PageChange::new_page;
  const bool was_gone = is_gone_status(before.status_code);
  if (is_gone_status(now.status_code))
    return was_gone ? PageChange::unchanged : PageChange::gone;
  if (was_gone || before.status_code != now.status_code)
    return PageChange::changed;
  if (before.digest.empty() || now.digest.empty())
    return PageChange::changed;
  return before.digest == now.digest ? PageChange::unchanged : PageChange::changed;
}

}  // namespace actorcrawl
