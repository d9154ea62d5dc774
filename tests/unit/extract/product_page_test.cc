// A shop's product page (tests/data/extract/product_page.html) read with
// the rules a user of the crawler would write for it.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/extract/extract_processor.h"
#include "core/extract/extraction_rules.h"

namespace actorcrawl {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(ACTORCRAWL_TEST_DATA) + "/extract/" + name, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The YAML of docs/plugins.md's example, as JSON.
constexpr const char* kRules = R"~([
  {"name": "product", "urls": "/product/",
   "fields": {
     "title":  {"css": "h1::text"},
     "price":  {"xpath": "//p[@class='now']/span[@class='price']/text()", "regex": "[0-9]+[.][0-9]+"},
     "was":    {"css": ".old-price .price", "regex": "([0-9]+)[.]"},
     "tags":   {"css": "ul.tags li ::text", "all": true},
     "image":  {"css": "img.main::attr(src)", "url": true},
     "images": {"css": ".gallery img::attr(src)", "url": true, "all": true},
     "sku":    {"css": "#product::attr(data-sku)"},
     "in_stock": {"xpath": "boolean(//p[contains(concat(' ', @class, ' '), ' in-stock ')])"},
     "specs":  {"css": "table.specs td", "all": true},
     "colour": {"xpath": "//th[. = 'Colour']/following-sibling::td[1]"},
     "crumbs": {"css": "nav.breadcrumb li:not(:first-child) a::text", "all": true},
     "description": {"css": "section.description p", "all": true},
     "next":   {"css": "a.next::attr(href)", "url": true},
     "ld_json": {"css": "script[type='application/ld+json']::text"},
     "rating": {"css": ".rating"}
   }},
  {"name": "category", "urls": "/shoes/", "fields": {"title": {"css": "h1"}}}
])~";

}  // namespace

TEST_CASE("product page: the rules a shop needs", "[extract][product]") {
  const auto rules = ExtractionRules::compile(kRules);
  const std::string page = fixture("product_page.html");
  const std::string url = "https://outfitters.example/product/trail-runner-2";
  // The page's <base href>, as the extract processor passes it.
  const auto items = rules->extract(url, "https://cdn.outfitters.example/catalog/", page);
  REQUIRE(items.size() == 1);
  CHECK(items[0].kind == "product");
  const auto fields = nlohmann::json::parse(items[0].json);
  CHECK(fields["title"] == "Trail Runner 2");
  CHECK(fields["price"] == "89.90");
  CHECK(fields["was"] == "119");
  CHECK(fields["tags"] == nlohmann::json{"running", "trail", "waterproof"});
  CHECK(fields["image"] == "https://cdn.outfitters.example/catalog/img/tr2-main.jpg");
  CHECK(fields["images"] == nlohmann::json{"https://cdn.outfitters.example/catalog/img/tr2-side-small.jpg",
                                           "https://cdn.outfitters.example/catalog/img/tr2-main.jpg"});
  CHECK(fields["sku"] == "TR-002");
  CHECK(fields["in_stock"] == true);
  CHECK(fields["specs"] == nlohmann::json{"Moss green", "38\xE2\x80\x93" "47"});
  CHECK(fields["colour"] == "Moss green");
  CHECK(fields["crumbs"] == nlohmann::json{"Shoes", "Trail & Mountain"});
  CHECK(fields["description"] ==
        nlohmann::json{"A light, grippy shoe for muddy trails.", "Weighs 280\xE2\x80\xAFg; drop 6 mm."});
  CHECK(fields["next"] == "https://cdn.outfitters.example/product/trail-runner-3?ref=next");
  CHECK(nlohmann::json::parse(fields["ld_json"].get<std::string>())["offers"]["price"] == "89.90");
  CHECK(fields["rating"].is_null());
  // The order the rule gives.
  CHECK(items[0].json.rfind("{\"title\":", 0) == 0);
}

TEST_CASE("product page: through the processor, after html_links found <base>", "[extract][product]") {
  const std::string body = fixture("product_page.html");
  FetchedPage page;
  page.url = page.final_url = "https://outfitters.example/product/trail-runner-2";
  page.status_code = 200;
  page.content_type = "text/html";
  page.charset = "utf-8";
  page.body = body;
  std::string error;
  const auto chain = ProcessorChain::make({"html_links"}, {}, &error);
  REQUIRE(error.empty());
  PageAnalysis analysis = chain.run(page);
  CHECK(analysis.base_href == "https://cdn.outfitters.example/catalog/");
  ExtractProcessor extract(ExtractionRules::compile(kRules));
  extract.process(page, analysis);
  REQUIRE(analysis.items.size() == 1);
  const auto fields = nlohmann::json::parse(analysis.items[0].json);
  CHECK(fields["image"] == "https://cdn.outfitters.example/catalog/img/tr2-main.jpg");
  CHECK(analysis.processor_failures.empty());
}

}  // namespace actorcrawl
