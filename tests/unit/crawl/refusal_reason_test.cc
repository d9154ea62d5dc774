#include "core/crawl/refusal_reason.h"

#include <catch2/catch.hpp>

namespace actorcrawl {

TEST_CASE("a refusal is explained with its name and what lifts it", "[refusal_reason]") {
  const auto private_address = explain_refusal("private_address");
  CHECK(private_address.find("(private_address)") != std::string::npos);
  CHECK(private_address.find("--allow-private-networks") != std::string::npos);
  CHECK(explain_refusal("robots_txt").find("respect_robots_txt: false") != std::string::npos);
  CHECK(explain_refusal("max_url_length") ==
        "a crawler-trap limit refused it (max_url_length); raise max_url_length to let it through");
  CHECK(explain_refusal("dns_failure").find("parked and tried again on the next run") != std::string::npos);
  CHECK(explain_refusal("something_new") == "refused (something_new)");
}

}  // namespace actorcrawl
