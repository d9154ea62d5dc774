// The scraper's loop: crawl once, change the rules, run `actorcrawl
// extract` over the kept bodies (no request: the web's own log is the
// judge), try a page from the store with `actorcrawl parse --db`.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>

#include "binary_run.h"
#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;
using json = nlohmann::ordered_json;  // the rules keep their fields in the order written

namespace {

std::string listing_page(int page, int products) {
  std::string html = "<html><head><title>List " + std::to_string(page) + "</title></head><body><h1>Page " +
                     std::to_string(page) + "</h1>";
  for (int i = 0; i < products; ++i) {
    const int id = page * 100 + i;
    html += "<div class=product><h2>Product " + std::to_string(id) + "</h2><span class=price>" +
            std::to_string(id) + ".25</span><a href=\"/item/" + std::to_string(id) + "\">more</a></div>";
  }
  return html + "</body></html>";
}

struct ShopWeb {
  LoopbackWeb web;
  std::string host = web.add_host("127.0.0.1");
  ShopWeb() {
    web.route(host, "/", html(page("Shop", {"/list/1", "/list/2"})));
    web.route(host, "/list/1", html(listing_page(1, 4)));
    web.route(host, "/list/2", html(listing_page(2, 3)));
  }
  std::string url(const std::string& path) const { return LoopbackWeb::url(host, path); }
};

std::string write(const ScratchDir& dir, const std::string& name, const json& config) {
  const std::string path = dir.path(name);
  std::ofstream(path) << config.dump(2);
  return path;
}

json plugin_dying_on(const std::string& path) {
  return json{{"name", "dies"},
              {"exec", {"python3", std::string{ACTORCRAWL_SOURCE_DIR} + "/tests/data/plugins/exits_on.py", path}}};
}

const json kTitles = json::array({json{{"name", "heading"}, {"fields", {{"h1", {{"css", "h1::text"}}}}}}});
const json kProducts = json::array(
  {json{{"name", "heading"}, {"fields", {{"h1", {{"css", "h1::text"}}}}}},
   json{{"name", "product"},
        {"urls", "/list/"},
        {"each", "div.product"},
        {"fields",
         {{"name", {{"css", "h2::text"}}}, {"price", {{"css", "span.price::text"}, {"type", "float"}}},
          {"link", {{"css", "a::attr(href)"}, {"url", true}}}}}}});

}  // namespace

TEST_CASE("extract: changed rules replace the items from the kept bodies, and the web sees no request",
          "[integration][reextract]") {
  ScratchDir dir;
  ShopWeb shop;
  const std::string db = dir.path("crawl.db");
  const std::string first = write(dir, "first.yaml",
                                  json{{"extract", kTitles}, {"processors", {"html_links", plugin_dying_on("/list/2")}}});
  const Outcome crawled = run("crawl --quiet --seed " + shop.url("/") + " --config " + first + " --db " + db +
                              " --metrics " + dir.path("m.log") + " --politeness-delay 0 --no-sitemaps --max-depth 1");
  REQUIRE(crawled.exit_code == 0);
  const auto requests = shop.web.requests().size();
  CHECK(count(db, "SELECT COUNT(*) FROM items WHERE kind = 'heading'") == 3);
  CHECK(count(db, "SELECT COUNT(*) FROM processor_failures WHERE processor = 'dies'") == 1);
  CHECK(count(db, "SELECT COUNT(*) FROM bodies") == 3);

  // The rules change: a product a listing's element, typed.
  const std::string second = write(dir, "second.yaml", json{{"extract", kProducts}, {"processors", {"html_links"}}});
  const Outcome extracted = run("extract --db " + db + " --config " + second + " --json");
  INFO(extracted.output);
  REQUIRE(extracted.exit_code == 0);
  const json report = json::parse(extracted.output);
  CHECK(report["pages"] == 3);
  CHECK(report["items_after"] == 3 + 7);
  CHECK(report["items_by_kind"]["product"] == 7);
  CHECK(shop.web.requests().size() == requests);
  CHECK(column(db, "SELECT item FROM items i JOIN pages p USING (page_id) WHERE p.url LIKE '%/list/2' AND "
                   "kind = 'product' ORDER BY item_id") ==
        std::vector<std::string>{R"({"name":"Product 200","price":200.25,"link":")" + shop.url("/item/200") + "\"}",
                                 R"({"name":"Product 201","price":201.25,"link":")" + shop.url("/item/201") + "\"}",
                                 R"({"name":"Product 202","price":202.25,"link":")" + shop.url("/item/202") + "\"}"});
  // Without --kind a page holds what the configuration gives: the plugin
  // that is no longer configured left no items and no failures.
  CHECK(count(db, "SELECT COUNT(*) FROM items WHERE kind = 'dies'") == 0);
  CHECK(count(db, "SELECT COUNT(*) FROM processor_failures") == 0);

  // The page from the store, as `parse` prints a fetched one: the same items.
  const Outcome stored = run("parse --db " + db + " --url " + shop.url("/list/1") + " --config " + second +
                             " --css 'span.price::text'");
  INFO(stored.output);
  REQUIRE(stored.exit_code == 0);
  const json from_store = json::parse(stored.output);
  CHECK(from_store["source"] == "store");
  CHECK(from_store["items"].size() == 1 + 4);
  CHECK(from_store["selected"]["css span.price::text"] == json::array({"100.25", "101.25", "102.25", "103.25"}));
  CHECK(from_store["links"].size() == 4);
  CHECK(shop.web.requests().size() == requests);
  const Outcome fetched = run("parse " + shop.url("/list/1") + " --config " + second + " --politeness-delay 0");
  REQUIRE(fetched.exit_code == 0);
  const json from_web = json::parse(fetched.output);
  CHECK(from_web["source"] == "web");
  CHECK(from_web["items"] == from_store["items"]);
  CHECK(from_web["links"] == from_store["links"]);
  CHECK(shop.web.requests().size() > requests);
}

TEST_CASE("extract: a fixed plugin is given the pages it failed on, and only those", "[integration][reextract]") {
  ScratchDir dir;
  ShopWeb shop;
  const std::string db = dir.path("crawl.db");
  const json dying{{"processors", {"html_links", plugin_dying_on("/list/2")}}};
  REQUIRE(run("crawl --quiet --seed " + shop.url("/") + " --config " + write(dir, "dying.yaml", dying) + " --db " + db +
              " --metrics " + dir.path("m.log") + " --politeness-delay 0 --no-sitemaps --max-depth 1")
            .exit_code == 0);
  REQUIRE(count(db, "SELECT COUNT(*) FROM items WHERE kind = 'dies'") == 2);
  const auto requests = shop.web.requests().size();

  const json fixed{{"processors", {"html_links", plugin_dying_on("/nowhere")}}};
  const Outcome again =
    run("extract --db " + db + " --failed --kind dies --json --config " + write(dir, "fixed.yaml", fixed));
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  const json report = json::parse(again.output);
  CHECK(report["pages"] == 1);
  CHECK(report["items_after"] == 1);
  CHECK(count(db, "SELECT COUNT(*) FROM items WHERE kind = 'dies'") == 3);
  CHECK(count(db, "SELECT COUNT(*) FROM processor_failures") == 0);
  CHECK(shop.web.requests().size() == requests);
}

TEST_CASE("extract: a crawl without keep_bodies is left as it was and says so, and a missing database or flag is refused",
          "[integration][reextract]") {
  ScratchDir dir;
  ShopWeb shop;
  const std::string db = dir.path("crawl.db");
  const std::string rules = write(dir, "rules.yaml", json{{"extract", kTitles}});
  REQUIRE(run("crawl --quiet --no-keep-bodies --seed " + shop.url("/") + " --config " + rules + " --db " + db +
              " --metrics " + dir.path("m.log") + " --politeness-delay 0 --no-sitemaps --max-depth 1")
            .exit_code == 0);
  CHECK(count(db, "SELECT COUNT(*) FROM bodies") == 0);
  const Outcome extracted = run("extract --db " + db + " --config " + rules);
  CHECK(extracted.exit_code == 0);
  CHECK(extracted.output.find("pages whose body was not kept, left as they were: 3") != std::string::npos);
  CHECK(count(db, "SELECT COUNT(*) FROM items") == 3);
  const Outcome parsed = run("parse --db " + db + " --url " + shop.url("/list/1"));
  CHECK(parsed.exit_code == 1);
  CHECK(parsed.output.find("was not kept") != std::string::npos);
  CHECK(run("extract --db " + dir.path("none.db")).exit_code == 1);
  CHECK(run("extract --config " + rules).exit_code == 2);
}

TEST_CASE("extract: a plugin that fails keeps the items its earlier run gave, and one that gives up stops the run",
          "[integration][reextract]") {
  ScratchDir dir;
  ShopWeb shop;
  const std::string db = dir.path("crawl.db");
  const json first{{"processors", {"html_links", plugin_dying_on("/nowhere")}}};
  REQUIRE(run("crawl --quiet --seed " + shop.url("/") + " --config " + write(dir, "first.yaml", first) + " --db " + db +
              " --metrics " + dir.path("m.log") + " --politeness-delay 0 --no-sitemaps --max-depth 1")
            .exit_code == 0);
  REQUIRE(count(db, "SELECT COUNT(*) FROM items WHERE kind = 'dies'") == 3);

  // Broken now on every page: each page records the failure and keeps its
  // item from before, rather than losing it.
  const json broken{{"processors", {"html_links", plugin_dying_on("*")}}};
  const Outcome failing = run("extract --db " + db + " --json --config " + write(dir, "broken.yaml", broken));
  INFO(failing.output);
  CHECK(failing.exit_code == 0);
  CHECK(count(db, "SELECT COUNT(*) FROM items WHERE kind = 'dies'") == 3);
  CHECK(count(db, "SELECT COUNT(DISTINCT page_id) FROM processor_failures WHERE processor = 'dies'") == 3);

  // One that gives up at its first failure stops the run there: exit 1,
  // saying why, and the pages after it untouched.
  json gives_up = plugin_dying_on("*");
  gives_up["max_failures_in_a_row"] = 1;
  const json quitting{{"processors", {"html_links", gives_up}}};
  const Outcome stopped = run("extract --db " + db + " --config " + write(dir, "quits.yaml", quitting));
  INFO(stopped.output);
  CHECK(stopped.exit_code == 1);
  CHECK(stopped.output.find("stopped before the last page") != std::string::npos);
  CHECK(count(db, "SELECT COUNT(*) FROM items WHERE kind = 'dies'") == 3);
}
