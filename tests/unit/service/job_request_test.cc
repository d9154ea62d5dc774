#include "service/job_request.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace actorcrawl {

namespace {

// The code of the ApiError a body is refused with.
std::string refusal(const std::string& body, const JobLimits& limits = {}) {
  try {
    parse_job_request(body, limits);
  } catch (const ApiError& e) {
    CHECK(e.status() == 400);
    return e.code();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("job request: the seed's body, with defaults", "[job_request]") {
  const auto r = parse_job_request(R"({"url": "https://Example.com", "max_pages": 10})");
  CHECK(r.url == "https://example.com/");
  CHECK(r.max_pages == 10);
  CHECK_FALSE(r.field<std::int64_t>("max_depth"));
  CHECK(parse_job_request(R"({"url": "http://a.test/"})").max_pages == 10);
}

TEST_CASE("job request: every optional field", "[job_request]") {
  const auto r = parse_job_request(R"({"url": "http://a.test/", "max_pages": 5, "max_depth": 2,
      "profile": "domains", "politeness_delay_ms": 250, "allowed_domains": ["a.test", "b.test"],
      "respect_robots_txt": false, "sitemap_urls": ["HTTP://A.test:80/maps/s.xml"]})");
  CHECK(*r.field<std::int64_t>("max_depth") == 2);
  CHECK(*r.field<std::string>("profile") == "domains");
  CHECK(*r.field<std::int64_t>("politeness_delay_ms") == 250);
  CHECK(*r.field<std::vector<std::string>>("allowed_domains") == std::vector<std::string>{"a.test", "b.test"});
  CHECK(*r.field<bool>("respect_robots_txt") == false);
  CHECK(*r.field<std::vector<std::string>>("sitemap_urls") == std::vector<std::string>{"http://a.test/maps/s.xml"});  // normalized
  // Stored and read back unchanged.
  const auto again = job_request_from_json(to_json(r));
  CHECK(to_json(again) == to_json(r));

  CrawlConfig base;
  base.politeness_delay_ms = 1000;
  base.concurrent_workers = 7;
  const auto c = job_config(base, r);
  CHECK(c.seeds == std::vector<std::string>{"http://a.test/"});
  CHECK(c.max_pages == 5);
  CHECK(c.max_depth == 2);
  CHECK(c.profile == "domains");
  CHECK(c.politeness_delay_ms == 250);
  CHECK(c.respect_robots_txt == false);
  CHECK(c.sitemap_urls == std::vector<std::string>{"http://a.test/maps/s.xml"});
  CHECK(c.sitemaps_enabled());  // in the domains profile too: the job named sitemaps
  CHECK(c.concurrent_workers == 7);  // the rest is the service's
}

TEST_CASE("job request: each bad body has its code", "[job_request]") {
  CHECK(refusal("") == "malformed_json");
  CHECK(refusal("{\"url\": ") == "malformed_json");
  CHECK(refusal("\"http://a.test/\"") == "invalid_body");
  CHECK(refusal("{}") == "missing_field");
  CHECK(refusal(R"({"url": null})") == "invalid_type");
  CHECK(refusal(R"({"url": "mailto:a@b.c"})") == "invalid_url");
  CHECK(refusal(R"({"url": "file:///etc/passwd"})") == "invalid_url");
  CHECK(refusal(R"({"url": "http://a.test/", "max_pages": 0})") == "out_of_range");
  CHECK(refusal(R"({"url": "http://a.test/", "max_pages": -5})") == "out_of_range");
  CHECK(refusal(R"({"url": "http://a.test/", "max_pages": 100001})") == "out_of_range");
  CHECK(refusal(R"({"url": "http://a.test/", "max_pages": 1.5})") == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "max_depth": 101})") == "out_of_range");
  CHECK(refusal(R"({"url": "http://a.test/", "politeness_delay_ms": 60001})") == "out_of_range");
  CHECK(refusal(R"({"url": "http://a.test/", "profile": 3})") == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "profile": "all"})") == "out_of_range");
  CHECK(refusal(R"({"url": "http://a.test/", "respect_robots_txt": "no"})") == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "allowed_domains": "a.test"})") == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "allowed_domains": [""]})") == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "allowed_domains": [")" + std::string(254, 'a') + "\"]}") ==
        "out_of_range");
  // Each field is its config key's: what the key takes, the job takes (an
  // empty pattern is RE2's, which matches every URL), within the job's bounds.
  CHECK(refusal(R"({"url": "http://a.test/", "follow_patterns": [""]})") == "accepted");
  CHECK(refusal(R"({"url": "http://a.test/", "scope": "page"})") == "out_of_range");
  CHECK(refusal(R"({"url": "http://a.test/", "max_depth": 100})") == "accepted");
  CHECK(refusal(R"({"url": "http://a.test/", "sitemap_urls": "http://a.test/s.xml"})") == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "sitemap_urls": [3]})") == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "sitemap_urls": ["ftp://a.test/s.xml"]})") == "invalid_url");
  CHECK(refusal(R"({"url": "http://a.test/", "sitemaps": false, "sitemap_urls": ["http://a.test/s.xml"]})") ==
        "out_of_range");
  {
    std::string many = R"({"url": "http://a.test/", "sitemap_urls": [)";
    for (int i = 0; i <= 100; ++i)
      many += std::string(i ? "," : "") + "\"http://a.test/" + std::to_string(i) + ".xml\"";
    CHECK(refusal(many + "]}") == "out_of_range");
  }
  CHECK(refusal(R"({"url": "http://a.test/", "maxpages": 3})") == "unknown_field");
  JobLimits small;
  small.max_pages = 50;
  CHECK(refusal(R"({"url": "http://a.test/", "max_pages": 51})", small) == "out_of_range");
  CHECK(refusal(R"({"url": "http://a.test/", "max_pages": 50})", small) == "accepted");
}

TEST_CASE("job request: an ApiError renders as the API's error body", "[job_request]") {
  const ApiError e(429, "too_many_jobs", "4 jobs are running");
  CHECK(nlohmann::json::parse(e.json()) ==
        nlohmann::json{{"error", {{"code", "too_many_jobs"}, {"message", "4 jobs are running"}}}});
}

TEST_CASE("job request: errors quoting bytes that are not UTF-8 still render as JSON", "[job_request]") {
  // A path or header quoted in a message may be any bytes: they become
  // U+FFFD instead of an exception out of the error path.
  const ApiError e(404, "not_found", "no route GET /\xff\xfe");
  const auto body = nlohmann::json::parse(e.json());
  CHECK(body.at("error").at("message") == "no route GET /\xEF\xBF\xBD\xEF\xBF\xBD");
  // Values quoted back from a body are cut between characters, not inside
  // one: 'ftp:///' and 150 two-byte characters, cut at 200 bytes.
  std::string url = "ftp:///";
  for (int i = 0; i < 150; ++i)
    url += "\xC3\xA9";
  try {
    parse_job_request(nlohmann::json{{"url", url}}.dump());
    FAIL("accepted");
  } catch (const ApiError& refused) {
    CHECK(refused.code() == "invalid_url");
    const auto message = nlohmann::json::parse(refused.json()).at("error").at("message").get<std::string>();
    CHECK(message.find("\xEF\xBF\xBD") == std::string::npos);  // nothing was replaced: the cut is clean
  }
}

}  // namespace actorcrawl

namespace actorcrawl {

TEST_CASE("job request: an extraction rule's fields keep the order the client wrote", "[job_request]") {
  const auto r = parse_job_request(
    R"({"url": "http://a.test/", "extract": [{"name": "p", "fields": {"zeta": {"css": "b"}, "alpha": {"css": "i"}}}]})");
  REQUIRE(r.field<std::string>("extract"));
  CHECK(*r.field<std::string>("extract") == R"([{"name":"p","fields":{"zeta":{"css":"b"},"alpha":{"css":"i"}}}])");
  // Stored with the job and read back after a restart, still in order.
  const auto again = job_request_from_json(to_json(r));
  CHECK(*again.field<std::string>("extract") == *r.field<std::string>("extract"));
  CHECK(job_config(CrawlConfig{}, again).extract_rules == *r.field<std::string>("extract"));
}

}  // namespace actorcrawl

namespace actorcrawl {

TEST_CASE("job request: a body nested deep or with an object of too many members is refused before it is parsed",
          "[job_request]") {
  const std::string deep =
    R"({"url": "http://a.test/", "extract": )" + std::string(100000, '[') + std::string(100000, ']') + "}";
  try {
    parse_job_request(deep);
    FAIL("accepted");
  } catch (const ApiError& e) {
    CHECK(e.code() == "invalid_body");
    CHECK(std::string{e.what()} == "the body's JSON is nested deeper than 64 levels");
  }
  std::string wide = R"({"url": "http://a.test/", "x": {)";
  for (int i = 0; i < 20000; ++i) wide += (i ? ",\"" : "\"") + std::to_string(i) + "\":1";
  wide += "}}";
  try {
    parse_job_request(wide);
    FAIL("accepted");
  } catch (const ApiError& e) {
    CHECK(e.code() == "invalid_body");
    CHECK(std::string{e.what()} == "the body's JSON is an object of more than 10000 members");
  }
}

}  // namespace actorcrawl

namespace actorcrawl {

TEST_CASE("job request: link patterns, and what sites require where the operator allows it", "[job_request]") {
  const std::string body = R"({"url": "http://a.test/", "follow_patterns": ["/news/"], "exclude_patterns": ["\\?print"],
      "headers": ["Accept-Language: de", {"hosts": "^a\\.test$", "X-Api-Key": "k-SECRET"}],
      "auth": [{"hosts": "^a\\.test$", "basic": "u:p-SECRET"}],
      "cookies": "a.test\tFALSE\t/\tFALSE\t0\tsession\ts-SECRET\n", "proxy": "http://127.0.0.9:3128"})";
  // Not allowed by default: 403, naming the field, never its value.
  try {
    parse_job_request(body);
    FAIL("a job carried headers the operator did not allow");
  } catch (const ApiError& e) {
    CHECK(e.status() == 403);
    CHECK(e.code() == "not_allowed");
    CHECK(std::string{e.what()}.find("SECRET") == std::string::npos);
    CHECK(e.json().find("SECRET") == std::string::npos);
  }
  JobLimits some;
  some.request_keys = {"headers"};
  try {
    parse_job_request(body, some);
    FAIL("a job carried auth the operator did not allow");
  } catch (const ApiError& e) {
    CHECK(e.status() == 403);
    CHECK(e.json().find("'auth'") != std::string::npos);
  }
  JobLimits all;
  all.request_keys = job_request_key_names();
  const auto r = parse_job_request(body, all);
  CHECK(*r.field<std::vector<std::string>>("follow_patterns") == std::vector<std::string>{"/news/"});
  CHECK(*r.field<std::vector<std::string>>("exclude_patterns") == std::vector<std::string>{"\\?print"});
  const auto& headers = *r.field<std::vector<std::string>>("headers");
  REQUIRE(headers.size() == 2);
  CHECK(headers[0] == "Accept-Language: de");
  CHECK(nlohmann::json::parse(headers[1])["X-Api-Key"] == "k-SECRET");
  CHECK(r.field<std::vector<std::string>>("auth")->size() == 1);
  CHECK(r.field<std::string>("cookies")->find("s-SECRET") != std::string::npos);
  CHECK(*r.field<std::string>("proxy") == "http://127.0.0.9:3128");
  // Kept in the job table as given (a resumed job sends them again), even
  // if the operator has since taken the allowance back.
  const auto again = job_request_from_json(to_json(r));
  CHECK(to_json(again) == to_json(r));

  const auto c = job_config(CrawlConfig{}, r);
  CHECK(c.follow_patterns == std::vector<std::string>{"/news/"});
  CHECK(c.exclude_patterns == std::vector<std::string>{"\\?print"});
  CHECK(c.request_headers == headers);
  CHECK(c.auth == *r.field<std::vector<std::string>>("auth"));
  CHECK(c.cookies_text == *r.field<std::string>("cookies"));
  CHECK(c.cookies);
  CHECK(c.proxy == "http://127.0.0.9:3128");
  CHECK(c.given.count("headers") == 1);

  CHECK(refusal(R"({"url": "http://a.test/", "follow_patterns": "/news/"})") == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "follow_patterns": [1]})") == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "headers": [1]})", all) == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "cookies": ["x"]})", all) == "invalid_type");
  CHECK(refusal(R"({"url": "http://a.test/", "proxy": 3128})", all) == "invalid_type");
  std::string many = R"({"url": "http://a.test/", "exclude_patterns": [)";
  for (int i = 0; i < 101; ++i)
    many += std::string{i ? "," : ""} + "\"x\"";
  CHECK(refusal(many + "]}") == "out_of_range");
}

}  // namespace actorcrawl
