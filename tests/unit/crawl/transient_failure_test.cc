#include "core/crawl/transient_failure.h"

#include <catch2/catch.hpp>

namespace actorcrawl {

TEST_CASE("transient failures are those that say nothing about the URL", "[transient_failure]") {
  for (const char* reason : {"dns_failure", "connect_failed", "timeout", "connection_reset", "transfer_failed",
                             "robots_unreachable", "http_500", "http_502", "http_503", "http_599", "http_429"}) {
    INFO(reason);
    CHECK(is_transient_failure(reason));
  }
  for (const char* reason : {"http_404", "http_410", "http_400", "http_428", "http_5", "http_5000", "http_5x0",
                             "private_address", "tls_error", "protocol_error", "bad_url", "too_many_redirects",
                             "redirect_loop", "bad_redirect", "bad_encoding", "robots_txt", "max_url_length",
                             "max_pages_per_host", "", "timeout_"}) {
    INFO(reason);
    CHECK_FALSE(is_transient_failure(reason));
  }
}

TEST_CASE("the park delay doubles with each attempt, up to 64 times the backoff", "[transient_failure]") {
  using std::chrono::milliseconds;
  CHECK(park_delay(milliseconds{100}, 0) == milliseconds{100});
  CHECK(park_delay(milliseconds{100}, 1) == milliseconds{100});
  CHECK(park_delay(milliseconds{100}, 2) == milliseconds{200});
  CHECK(park_delay(milliseconds{100}, 3) == milliseconds{400});
  CHECK(park_delay(milliseconds{100}, 7) == milliseconds{6400});
  CHECK(park_delay(milliseconds{100}, 1000) == milliseconds{6400});
}

}  // namespace actorcrawl
