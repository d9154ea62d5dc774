// Extraction rules in a crawl: a shop-like web (list pages, pagination,
// product pages) crawled with rules in CSS and XPath, read back through
// `actorcrawl export --format items` exactly as the pages say.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "core/export/crawl_export.h"
#include "service/job_request.h"
#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;
using nlohmann::json;

namespace {

struct Product {
  int id;
  std::string title;
  std::string price_text;  // as the page shows it
  std::vector<std::string> tags;
};

const std::vector<Product> kProducts = {
  {1, "Blue  Kettle", "Price: $19.99", {"kitchen", "blue"}},
  {2, "Tea &amp; Biscuits", "now 4.50 EUR", {"food"}},
  {3, "Mug \xE2\x80\x94 large", "12.00", {}},
  {4, "Teapot", "", {"kitchen", "ceramic", "gift"}},  // no price shown
  {5, "Strainer", "$3.25 (was $4.00)", {"kitchen"}},
};

std::string product_page(const Product& p) {
  std::string tags;
  for (const auto& t : p.tags)
    tags += "<li> " + t + " </li>";
  return "<!doctype html><html><head><title>Shop: " + p.title + "</title>" +
         (p.id == 5 ? "<base href=\"/static/\">" : "") + "</head><body><h1>\n  " + p.title + "\n</h1>" +
         (p.price_text.empty() ? "" : "<p>Offer: <span class=\"price\">" + p.price_text + "</span></p>") +
         "<ul class=\"tags\">" + tags + "</ul><img class=\"thumb\" src=\"t.jpg\"><img class=\"main big\" src=\"img/" +
         std::to_string(p.id) + ".jpg\"><a href=\"/list\">back</a></body></html>";
}

const char* const kRules = R"rules([
  {"name": "product", "urls": "/product/",
   "fields": {"title": {"css": "h1::text"},
              "price": {"xpath": "//span[@class='price']/text()", "regex": "[0-9]+[.][0-9]+"},
              "tags": {"css": "ul.tags li::text", "all": true},
              "image": {"css": "img.main::attr(src)", "url": true}}},
  {"name": "listing", "urls": "/list",
   "fields": {"products": {"xpath": "count(//a[contains(@href, '/product/')])"},
              "next": {"css": "a.next::attr(href)", "url": true}}}
])rules";

}  // namespace

TEST_CASE("extraction rules: a shop's every product, exactly, through export --format items",
          "[integration][extract]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const std::string base = LoopbackWeb::url(h, "");
  web.route(h, "/", html(page("Shop", {"/list"})));
  web.route(h, "/list", html("<html><body><a href=/product/1>1</a><a href=/product/2>2</a><a href=/product/3>3</a>"
                             "<a class=next href='/list/2'>next</a></body></html>"));
  web.route(h, "/list/2", html("<html><body><a href=/product/4>4</a><a href=/product/5>5</a></body></html>"));
  for (const auto& p : kProducts)
    web.route(h, "/product/" + std::to_string(p.id), html(product_page(p)));

  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.extract_rules = kRules;
  const auto result = crawl(config);
  CHECK(result.summary.pages_fetched == 8);
  CHECK(result.summary.items_stored == 7);
  // Extraction reads pages the crawl fetched: each was requested once.
  const auto seen = targets_seen(web, h);
  CHECK(seen.size() == 8);
  for (const auto& [target, times] : seen) {
    INFO(target);
    CHECK(times == 1);
  }

  std::ostringstream out;
  CrawlExport(config.db_path).write(ExportFormat::items, ExportGraph::domains, out);
  std::map<std::string, json> items;  // by page URL and kind
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    const auto j = json::parse(line);
    items[j.at("url").get<std::string>() + " " + j.at("kind").get<std::string>()] = j.at("item");
  }
  REQUIRE(items.size() == 7);
  const auto product = [&](int id) { return items.at(base + "/product/" + std::to_string(id) + " product"); };
  CHECK(product(1) == json{{"title", "Blue  Kettle"}, {"price", "19.99"}, {"tags", {"kitchen", "blue"}},
                           {"image", base + "/product/img/1.jpg"}});
  CHECK(product(2) == json{{"title", "Tea & Biscuits"}, {"price", "4.50"}, {"tags", {"food"}},
                           {"image", base + "/product/img/2.jpg"}});
  CHECK(product(3) == json{{"title", "Mug \xE2\x80\x94 large"}, {"price", "12.00"}, {"tags", json::array()},
                           {"image", base + "/product/img/3.jpg"}});
  CHECK(product(4) == json{{"title", "Teapot"}, {"price", nullptr}, {"tags", {"kitchen", "ceramic", "gift"}},
                           {"image", base + "/product/img/4.jpg"}});
  // The first of several prices; the image resolved against <base href>.
  CHECK(product(5) == json{{"title", "Strainer"}, {"price", "3.25"}, {"tags", {"kitchen"}},
                           {"image", base + "/static/img/5.jpg"}});
  CHECK(items.at(base + "/list listing") == json{{"products", 3}, {"next", base + "/list/2"}});
  CHECK(items.at(base + "/list/2 listing") == json{{"products", 2}, {"next", nullptr}});
  // Pages no rule matches have no items; nothing failed.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM items i JOIN pages p USING (page_id) WHERE p.url = '" + base +
                                "/'") == 0);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM processor_failures") == 0);
}

TEST_CASE("extraction rules: a bad rule stops the crawl before it starts, naming rule and field",
          "[integration][extract]") {
  ScratchDir dir;
  auto config = fast_config(dir, "http://127.0.0.1:1/");
  const auto error_of = [&](const std::string& rules) {
    config.extract_rules = rules;
    try {
      run_crawl(config, {});
    } catch (const ConfigError& e) {
      return std::string{e.what()};
    }
    return std::string{"(no error)"};
  };
  CHECK(error_of(R"([{"name": "p", "fields": {"price": {"xpath": "//span["}}}])").find("'price'") != std::string::npos);
  CHECK(error_of(R"([{"name": "p", "fields": {"t": {"css": "h1:hover"}}}])").find("'t'") != std::string::npos);
  CHECK(error_of(R"([{"name": "p", "fields": {"t": {"css": "h1", "regex": "("}}}])").find("'t'") != std::string::npos);
  CHECK(error_of(R"([{"name": "p", "fields": {"t": {"css": "h1", "first": true}}}])").find("first") !=
        std::string::npos);
  CHECK(error_of(R"([{"name": "p", "urls": "(", "fields": {"t": {"css": "h1"}}}])").find("'p'") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(config.db_path));
}

// An item's keys, and a kind's CSV columns, come in the order the rule
// lists its fields, whether the rules were written in YAML or sent in a
// job's body: neither path may sort them on the way.
TEST_CASE("extraction rules: fields keep the order written, from YAML and from a job body, into items and CSV",
          "[integration][extract]") {
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html("<html><head><title>T</title></head><body><b>1</b><i>2</i><u>3</u></body></html>"));

  const auto exported = [](const CrawlConfig& config, ExportFormat format) {
    std::ostringstream out;
    CrawlExport(config.db_path).write(format, ExportGraph::domains, out, {}, std::string{"z"});
    return out.str();
  };
  const auto check_order = [&](const CrawlConfig& config) {
    const auto result = crawl(config);
    REQUIRE(result.summary.items_stored == 1);
    const std::string items = exported(config, ExportFormat::items);
    CHECK(items.find(R"("item":{"zeta":"1","alpha":"2","mid":"3"})") != std::string::npos);
    const std::string csv = exported(config, ExportFormat::items_csv);
    CHECK(csv.substr(0, csv.find_first_of("\r\n")) == "url,zeta,alpha,mid");
  };

  SECTION("YAML") {
    ScratchDir dir;
    auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
    apply_yaml("extract:\n  - name: z\n    fields:\n      zeta: {css: b}\n      alpha: {css: i}\n      mid: {css: u}\n",
               "rules.yaml", config);
    check_order(config);
  }
  SECTION("a job's body") {
    ScratchDir dir;
    const JobRequest job = job_request_from_json(to_json(parse_job_request(
      R"({"url": ")" + LoopbackWeb::url(h, "/") +
      R"(", "extract": [{"name": "z", "fields": {"zeta": {"css": "b"}, "alpha": {"css": "i"}, "mid": {"css": "u"}}}]})")));
    check_order(job_config(fast_config(dir, LoopbackWeb::url(h, "/")), job));
  }
}

namespace {

// A listing web made from a model the test keeps: three pages of 20
// products, each with a price (a few without: their items must not be
// kept), a stock count some do not show (default 0), a sale flag, a link,
// and 0 to 3 variants. The pages are the model written out; the items must
// be the model read back.
struct Variant {
  std::string size;
  double price;
};
struct Listed {
  std::string sku;
  std::string name;
  std::optional<double> price;
  std::optional<int> stock;
  bool sale;
  std::vector<Variant> variants;
};

std::vector<std::vector<Listed>> listing_model() {
  std::vector<std::vector<Listed>> pages(3);
  const char* const sizes[] = {"S", "M", "L"};
  for (int n = 0; n < 60; ++n) {
    Listed p;
    p.sku = "SKU-" + std::to_string(1000 + n * 7);
    p.name = "Product " + std::to_string(n) + (n % 5 == 0 ? " &amp; more" : "");
    if (n % 13 != 4)
      p.price = (n * 37 % 100) + 0.25 * (n % 4);
    if (n % 3 != 0)
      p.stock = n * 11 % 50;
    p.sale = n % 4 == 1;
    for (int v = 0; v < n % 4; ++v)
      p.variants.push_back(Variant{sizes[v], 10.0 + v + 0.5 * (n % 2)});
    pages[static_cast<std::size_t>(n / 20)].push_back(p);
  }
  return pages;
}

std::string money(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

std::string listing_page(const std::vector<Listed>& products, int page, bool last) {
  std::string html = "<html><head><title>Page " + std::to_string(page) + "</title></head><body><h1>Catalogue</h1>";
  for (const auto& p : products) {
    html += "<div class=\"product card\" data-sku=\"" + p.sku + "\">\n  <h2> " + p.name + " </h2>";
    if (p.price)
      html += "<p>Price: <span class=\"price\">$" + money(*p.price) + "</span></p>";
    if (p.stock)
      html += "<span class=\"stock\">" + std::to_string(*p.stock) + " in stock</span>";
    html += std::string{"<span class=\"sale\">"} + (p.sale ? "yes" : "no") + "</span>";
    html += "<a class=\"more\" href=\"/item/" + p.sku + "\">details</a>";
    if (!p.variants.empty()) {
      html += "<table class=\"variants\"><tr><th>size</th><th>price</th></tr>";
      for (const auto& v : p.variants)
        html += "<tr><td class=\"size\">" + v.size + "</td><td class=\"price\">" + money(v.price) + "</td></tr>";
      html += "</table>";
    }
    html += "</div>\n";
  }
  if (!last)
    html += "<a class=\"next\" href=\"/list/" + std::to_string(page + 1) + "\">next</a>";
  return html + "</body></html>";
}

const char* const kListingRules = R"rules([
  {"name": "product", "urls": "/list/", "each": "div.product",
   "fields": {"sku": {"xpath": "@data-sku", "required": true},
              "name": {"css": "h2::text"},
              "price": {"css": "span.price::text", "regex": "[0-9]+[.][0-9]+", "type": "float", "required": true},
              "stock": {"css": "span.stock::text", "regex": "([0-9]+) in stock", "type": "int", "default": 0},
              "sale": {"css": "span.sale::text", "type": "bool"},
              "link": {"css": "a.more::attr(href)", "type": "url"},
              "variants": {"each": "table.variants tr",
                           "fields": {"size": {"css": "td.size::text", "required": true},
                                      "price": {"css": "td.price::text", "type": "float"}}}}}
])rules";

}  // namespace

TEST_CASE("extraction rules: each product of a listing web, typed and nested, exactly as the model made them",
          "[integration][extract]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  const std::string base = LoopbackWeb::url(h, "");
  const auto model = listing_model();
  web.route(h, "/", html(page("Shop", {"/list/1"})));
  for (std::size_t i = 0; i < model.size(); ++i)
    web.route(h, "/list/" + std::to_string(i + 1),
              html(listing_page(model[i], static_cast<int>(i + 1), i + 1 == model.size())));

  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  config.extract_rules = kListingRules;
  config.follow_patterns = {"/list/"};  // not the product links
  crawl(config);

  std::map<std::string, json> items;  // by SKU
  std::map<std::string, std::string> page_of;
  std::ostringstream out;
  CrawlExport(config.db_path).write(ExportFormat::items, ExportGraph::domains, out);
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    const auto j = json::parse(line);
    const std::string sku = j.at("item").at("sku").get<std::string>();
    CHECK(items.count(sku) == 0);
    items[sku] = j.at("item");
    page_of[sku] = j.at("url").get<std::string>();
  }

  std::size_t expected_items = 0, without_price = 0;
  for (std::size_t page_index = 0; page_index < model.size(); ++page_index) {
    for (const auto& p : model[page_index]) {
      INFO(p.sku);
      if (!p.price) {
        CHECK(items.count(p.sku) == 0);
        ++without_price;
        continue;
      }
      ++expected_items;
      REQUIRE(items.count(p.sku) == 1);
      json variants = json::array();
      for (const auto& v : p.variants)
        variants.push_back(json{{"size", v.size}, {"price", v.price}});
      std::string name = p.name;
      if (const auto amp = name.find("&amp;"); amp != std::string::npos)
        name.replace(amp, 5, "&");
      const json want = {{"sku", p.sku}, {"name", name}, {"price", *p.price}, {"stock", p.stock.value_or(0)},
                         {"sale", p.sale}, {"link", base + "/item/" + p.sku}, {"variants", variants}};
      CHECK(items.at(p.sku) == want);
      CHECK(page_of.at(p.sku) == base + "/list/" + std::to_string(page_index + 1));
    }
  }
  CHECK(items.size() == expected_items);
  CHECK(without_price > 0);
  // The items not kept are counted, with their rule, page by page.
  std::vector<std::string> want_details;
  for (const auto& products : model) {
    const auto missing = std::count_if(products.begin(), products.end(), [](const Listed& p) { return !p.price; });
    if (missing > 0)
      want_details.push_back("rule 'product': " + std::to_string(missing) + (missing == 1 ? " item" : " items") +
                             " without the required field 'price' (or another), not kept");
  }
  CHECK(column(config.db_path,
               "SELECT detail FROM processor_failures f JOIN pages p USING (page_id) WHERE f.reason = 'item_incomplete' "
               "ORDER BY p.url") == want_details);
}
