// The Python side: the helper module plugin authors write with
// (plugins/actorcrawl_plugin.py) and the example plugins, run as the
// crawler runs them.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "core/plugin/external_processor.h"
#include "tests/unit/plugin/plugin_test_support.h"

namespace actorcrawl {
namespace {

using namespace actorcrawl::testing;
using nlohmann::json;

TEST_CASE("a plugin written with the helper module: answers, errors, and prints kept out of the answers",
          "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(plugin_spec("helped", {"python3", kTestPlugins + "uses_helper.py"}), log.sink());
  const std::string head = "HTTP/1.1 200 OK\r\nServer: nginx\r\n\r\n";
  FetchedPage page = html_page("https://example.com/dir/page");
  page.response_head = head;
  PageAnalysis a;
  p->process(page, a);
  REQUIRE(a.processor_failures.empty());
  CHECK(first_item(a)["server"] == "nginx");
  REQUIRE(a.links.size() == 1);
  CHECK(a.links[0].href == "https://example.com/dir/next.html");
  CHECK(log.eventually_contains("plugin helped: a stray print from https://example.com/start"));

  const auto failure = only_failure(process(*p, "/raise"));
  CHECK(failure.reason == "plugin_error");
  CHECK(failure.detail == "RuntimeError: asked to fail");
  CHECK(log.eventually_contains("plugin helped: Traceback"));
  CHECK(process(*p, "/page").processor_failures.empty());
  CHECK(p->counts().restarts == 0);
}

TEST_CASE("the example plugins on a sample page", "[plugin]") {
  const std::string body = R"(<!doctype html><html lang="en"><head>
<title>Sample</title>
<meta property="og:title" content="A sample page">
<meta property="og:url" content="/canonical/sample">
<meta property="og:image" content="https://example.com/a.png">
<meta property="og:image" content="https://example.com/b.png">
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Article", "headline": "Sample"}</script>
<script type="application/ld+json">{"@graph": [{"@type": "Person", "name": "Ann"}, {"@type": "Organization"}]}</script>
<script>var the = "and of to in is"; // not text</script>
</head><body><p>The crawler found this page and it is a sample of the kind of pages that the
web has in it, with words for the count.</p></body></html>)";
  FetchedPage page = html_page("https://example.com/dir/sample");
  page.charset = "utf-8";
  page.body = body;

  auto structured = ExternalProcessor::start(plugin_spec("jsonld", {"python3", kPlugins + "jsonld.py"}));
  PageAnalysis a;
  structured->process(page, a);
  REQUIRE(a.processor_failures.empty());
  REQUIRE(a.items.size() == 4);
  CHECK(a.items[0].kind == "jsonld");
  const json article = json::parse(a.items[0].json);
  CHECK(article["source"] == "json-ld");
  CHECK(article["type"] == "Article");
  CHECK(article["data"]["headline"] == "Sample");
  CHECK(json::parse(a.items[1].json)["data"]["name"] == "Ann");
  CHECK(json::parse(a.items[2].json)["type"] == "Organization");
  const json og = json::parse(a.items[3].json);
  CHECK(og["source"] == "open-graph");
  CHECK(og["properties"]["og:title"] == "A sample page");
  CHECK(og["properties"]["og:image"] == json::array({"https://example.com/a.png", "https://example.com/b.png"}));
  REQUIRE(a.links.size() == 1);
  CHECK(a.links[0].href == "https://example.com/canonical/sample");

  auto counter = ExternalProcessor::start(plugin_spec("wordcount", {"python3", kPlugins + "wordcount.py"}));
  PageAnalysis w;
  counter->process(page, w);
  REQUIRE(w.processor_failures.empty());
  REQUIRE(w.items.size() == 1);
  const json words = json::parse(w.items[0].json);
  CHECK(w.items[0].kind == "wordcount");
  CHECK(words["words"] == 27);  // the title and the paragraph; no script
  CHECK(words["language"] == "en");
}

}  // namespace
}  // namespace actorcrawl
