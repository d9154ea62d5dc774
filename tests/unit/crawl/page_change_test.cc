#include "core/crawl/page_change.h"

#include <catch2/catch.hpp>
#include <string>

using namespace actorcrawl;

namespace {

StoredPage stored(std::int32_t status, std::string digest = "sha1:AAAA") {
  return StoredPage{true, status, std::move(digest)};
}

RefetchResult got(std::int32_t status, std::string digest = "sha1:AAAA") {
  RefetchResult f;
  f.answered = true;
  f.status_code = status;
  f.digest = std::move(digest);
  return f;
}

RefetchResult not_modified() {
  RefetchResult f = got(304, "");
  f.not_modified = true;
  return f;
}

}  // namespace

TEST_CASE("page change: the stored names are a contract", "[page_change]") {
  CHECK(std::string{to_string(PageChange::new_page)} == "new");
  CHECK(std::string{to_string(PageChange::changed)} == "changed");
  CHECK(std::string{to_string(PageChange::unchanged)} == "unchanged");
  CHECK(std::string{to_string(PageChange::gone)} == "gone");
  CHECK(std::string{to_string(PageChange::failed)} == "failed");
  for (auto c : {PageChange::new_page, PageChange::changed, PageChange::unchanged, PageChange::gone,
                 PageChange::failed})
    CHECK(parse_page_change(to_string(c)) == c);
  CHECK_FALSE(parse_page_change("New").has_value());
  CHECK_FALSE(parse_page_change("new_page").has_value());
  CHECK_FALSE(parse_page_change("").has_value());
}

TEST_CASE("page change: 304 to our validators is unchanged", "[page_change]") {
  CHECK(classify_change(stored(200), not_modified()) == PageChange::unchanged);
  // A stored page without a digest still is what the server says it is.
  CHECK(classify_change(stored(200, ""), not_modified()) == PageChange::unchanged);
  // Validators with nothing stored to match them: nothing learned.
  CHECK(classify_change(StoredPage{}, not_modified()) == PageChange::failed);
}

TEST_CASE("page change: a 304 to a request without validators is an answer like any other", "[page_change]") {
  // Stored as what it is (status 304, no body): the URL's first answer is
  // new, and one after a 200 is a change of the stored page.
  CHECK(classify_change(StoredPage{}, got(304, "")) == PageChange::new_page);
  CHECK(classify_change(stored(200), got(304, "")) == PageChange::changed);
  CHECK(classify_change(stored(304, ""), got(304, "")) == PageChange::changed);  // no digest proves it equal
  CHECK(classify_change(stored(304, "sha1:E"), got(304, "sha1:E")) == PageChange::unchanged);
}

TEST_CASE("page change: a body compared by digest", "[page_change]") {
  CHECK(classify_change(stored(200, "sha1:AAAA"), got(200, "sha1:AAAA")) == PageChange::unchanged);
  CHECK(classify_change(stored(200, "sha1:AAAA"), got(200, "sha1:BBBB")) == PageChange::changed);
  // Nothing proves an unknown digest equal.
  CHECK(classify_change(stored(200, ""), got(200, "sha1:AAAA")) == PageChange::changed);
  CHECK(classify_change(stored(200, "sha1:AAAA"), got(200, "")) == PageChange::changed);
  // Another status with the same body is a change (a page now a redirect).
  CHECK(classify_change(stored(200, "sha1:AAAA"), got(301, "sha1:AAAA")) == PageChange::changed);
  CHECK(classify_change(stored(301, "sha1:AAAA"), got(301, "sha1:AAAA")) == PageChange::unchanged);
}

TEST_CASE("page change: new is the first answer for a URL", "[page_change]") {
  CHECK(classify_change(StoredPage{}, got(200)) == PageChange::new_page);
  CHECK(classify_change(StoredPage{}, got(301)) == PageChange::new_page);
  // A URL first seen dead is a new row, with its status.
  CHECK(classify_change(StoredPage{}, got(404)) == PageChange::new_page);
  // No answer is no row: still failed.
  CHECK(classify_change(StoredPage{}, RefetchResult{}) == PageChange::failed);
  CHECK(classify_change(StoredPage{}, got(503)) == PageChange::failed);
}

TEST_CASE("page change: 404 and 410 are gone where a page was, and stay unchanged", "[page_change]") {
  CHECK(classify_change(stored(200), got(404)) == PageChange::gone);
  CHECK(classify_change(stored(200), got(410)) == PageChange::gone);
  CHECK(classify_change(stored(301), got(410)) == PageChange::gone);
  CHECK(classify_change(stored(404), got(404)) == PageChange::unchanged);
  CHECK(classify_change(stored(404), got(410)) == PageChange::unchanged);
  // Back after being gone.
  CHECK(classify_change(stored(404, "sha1:AAAA"), got(200, "sha1:AAAA")) == PageChange::changed);
  CHECK(is_gone_status(404));
  CHECK(is_gone_status(410));
  CHECK_FALSE(is_gone_status(400));
  CHECK_FALSE(is_gone_status(500));
}

TEST_CASE("page change: a fetch that says nothing about the page is failed, not a change", "[page_change]") {
  RefetchResult no_answer;  // a timeout, a reset, a DNS failure
  no_answer.status_code = 0;
  CHECK(classify_change(stored(200), no_answer) == PageChange::failed);
  // An error with a status left over (a body that could not be decoded)
  // is still no answer.
  RefetchResult broken = got(200);
  broken.answered = false;
  CHECK(classify_change(stored(200), broken) == PageChange::failed);
  for (int status : {500, 502, 503, 504, 429, 401, 403, 400, 408, 451, 100, 0, 199, 600}) {
    INFO(status);
    CHECK(classify_change(stored(200), got(status)) == PageChange::failed);
    CHECK(classify_change(stored(404), got(status)) == PageChange::failed);
  }
}
