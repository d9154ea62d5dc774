#include "core/setup/reextraction.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>
#include <string>

#include "core/crawl/content_digest.h"
#include "core/crawl/kept_body.h"
#include "core/store/crawl_store.h"
#include "core/store/store_error.h"
#include "tests/unit/temp_database.h"

using namespace actorcrawl;
using testing::scalar;
using testing::TempDbPath;

namespace {

PageRow page(const std::string& url, const std::string& html, bool keep = true) {
  PageRow row;
  row.url = url;
  row.host_key = "shop.test";
  row.status_code = 200;
  row.content_type = "text/html";
  row.bytes = static_cast<std::int64_t>(html.size());
  row.fetched_at_ms = 1000;
  row.final_url = url;
  row.content_digest = content_digest(html);
  if (keep)
    row.body = keep_body(html);
  row.items = {ExtractedItem{"title", R"({"h1":"stale"})"}};
  return row;
}

std::string listing(int products) {
  std::string html = "<html><head><base href=\"http://cdn.shop.test/\"></head><body><h1>Listing</h1>";
  for (int i = 0; i < products; ++i)
    html += "<div class=p><span class=name>P" + std::to_string(i) + "</span><span class=price>" +
            std::to_string(10 + i) + ".5</span><a href=\"p/" + std::to_string(i) + "\">x</a></div>";
  return html + "</body></html>";
}

// A listing page, a plain page, and one whose body was not kept.
void crawl_into(const std::string& path) {
  CrawlStore store(path);
  store.record_page(page("http://shop.test/list", listing(3)));
  store.record_page(page("http://shop.test/about", "<html><h1>About</h1></html>"));
  store.record_page(page("http://shop.test/old", "<html><h1>Old</h1></html>", false));
  store.flush();
}

CrawlConfig rules(const std::string& json) {
  CrawlConfig config;
  config.extract_rules = json;
  return config;
}

const char* kRules = R"json([
  {"name": "title", "fields": {"h1": {"css": "h1::text"}}},
  {"name": "product", "urls": "/list", "each": "div.p",
   "fields": {"name": {"css": "span.name::text"}, "price": {"css": "span.price::text", "type": "float"},
              "link": {"css": "a::attr(href)", "url": true}}}
])json";

std::string items_of(const std::string& path, const std::string& kind) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT group_concat(item, ' ') FROM (SELECT item FROM items WHERE kind = ?1 ORDER BY item_id)");
  q.bind(1, kind);
  REQUIRE(q.executeStep());
  return q.getColumn(0).isNull() ? "" : q.getColumn(0).getString();
}

}  // namespace

TEST_CASE("reextract: changed rules replace every kept page's items, in the rules' field order", "[reextraction]") {
  TempDbPath path;
  crawl_into(path.str());
  ReextractOptions options;
  options.db_path = path.str();
  int progress_calls = 0;
  const auto report = reextract(rules(kRules), options, [&](const ReextractReport&) { ++progress_calls; });
  CHECK(report.pages == 2);
  CHECK(progress_calls == 2);
  CHECK(report.pages_without_body == 1);
  CHECK(report.items_before == 2);
  CHECK(report.items_after == 5);
  CHECK(report.items_by_kind.at("product") == 3);
  CHECK(report.items_by_kind.at("title") == 2);
  CHECK(items_of(path.str(), "title") == R"({"h1":"stale"} {"h1":"Listing"} {"h1":"About"})");
  // Typed, and URLs resolved against the page's <base href> as at fetch time.
  CHECK(items_of(path.str(), "product").find(R"({"name":"P0","price":10.5,"link":"http://cdn.shop.test/p/0"})") !=
        std::string::npos);
  // The page whose body was not kept is left as it was.
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items i JOIN pages p USING (page_id) "
                           "WHERE p.url = 'http://shop.test/old' AND i.item = '{\"h1\":\"stale\"}'") == 1);
  bool ran_html_links = false;
  for (const auto& p : report.processors)
    ran_html_links = ran_html_links || p.processor == "html_links";
  CHECK(ran_html_links);
}

TEST_CASE("reextract: one kind, some URLs, the failed pages", "[reextraction]") {
  TempDbPath path;
  crawl_into(path.str());
  ReextractOptions options;
  options.db_path = path.str();
  options.kind = "product";
  auto report = reextract(rules(kRules), options);
  CHECK(report.items_after == 3);
  CHECK(report.items_by_kind.count("title") == 0);
  // The title rule's stale items stay: only product's were replaced.
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items WHERE kind = 'title'") == 3);

  options.kind.reset();
  options.url_pattern = "/about$";
  report = reextract(rules(kRules), options);
  CHECK(report.pages == 1);
  CHECK(report.pages_not_matched == 1);
  CHECK(items_of(path.str(), "title").find(R"({"h1":"About"})") != std::string::npos);

  // A required field that is missing fails the page: with --failed, only
  // that page runs again once the rule is fixed.
  options.url_pattern.clear();
  report = reextract(rules(R"([{"name": "title", "fields": {"h2": {"css": "h2::text", "required": true}}}])"), options);
  CHECK(report.pages == 2);
  CHECK(scalar(path.str(), "SELECT COUNT(DISTINCT page_id) FROM processor_failures WHERE reason = 'item_incomplete'") == 2);
  options.failed_only = true;
  report = reextract(rules(R"([{"name": "title", "fields": {"h1": {"css": "h1::text", "required": true}}}])"), options);
  CHECK(report.pages == 2);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM processor_failures") == 0);
  report = reextract(rules(kRules), options);
  CHECK(report.pages == 0);
}

TEST_CASE("reextract: what cannot be used is refused by name, and a damaged body loses nothing", "[reextraction]") {
  TempDbPath path;
  crawl_into(path.str());
  ReextractOptions options;
  options.db_path = path.str();
  options.kind = "nothing";
  CHECK_THROWS_WITH(reextract(rules(kRules), options), Catch::Contains("--kind 'nothing'"));
  options.kind.reset();
  options.url_pattern = "(";
  CHECK_THROWS_WITH(reextract(rules(kRules), options), Catch::Contains("not an RE2 pattern"));
  options.url_pattern.clear();
  CHECK_THROWS_AS(reextract(rules("[{\"name\": \"x\"}]"), options), ConfigError);
  {
    CrawlStore writer(path.str());
    CHECK_THROWS_AS(reextract(rules(kRules), options), DatabaseInUse);
  }
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
    db.exec("UPDATE bodies SET body = x'00112233' WHERE size > 100");
  }
  const auto report = reextract(rules(kRules), options);
  CHECK(report.pages == 1);
  CHECK(report.unreadable_bodies.size() == 1);
  CHECK(items_of(path.str(), "title").find("stale") != std::string::npos);
}
