#include "core/page/processor_registry.h"

#include <catch2/catch.hpp>

#include <stdexcept>

namespace actorcrawl {
namespace {

// A contributor's processor: one class, one add() line.
class TitleLength final : public PageProcessor {
 public:
  const char* name() const override { return "title_length"; }
  void process(const FetchedPage&, PageAnalysis& analysis) override {
    analysis.items.push_back(ExtractedItem{"title_length", "{\"length\":" + std::to_string(analysis.title.size()) + "}"});
  }
};

// Stands for an external processor: made from its object entry.
class NamedByEntry final : public PageProcessor {
 public:
  explicit NamedByEntry(std::string entry) : entry_(std::move(entry)) {}
  const char* name() const override { return entry_.c_str(); }
  void process(const FetchedPage&, PageAnalysis&) override {}
  bool reads_response_head() const override { return true; }

 private:
  std::string entry_;
};

FetchedPage html_page() {
  static const std::string body = "<title>Shop</title><a href=/a>a</a>";
  FetchedPage p;
  p.url = p.final_url = "http://shop.test/";
  p.status_code = 200;
  p.content_type = "text/html";
  p.body = body;
  return p;
}

}  // namespace

TEST_CASE("the registry: built-ins and a contributor's processor are made the same way, in order",
          "[processor_registry]") {
  ProcessorRegistry registry = ProcessorRegistry::builtin();
  registry.add("title_length", [](const std::string&, const ProcessorChain::Options&) {
    return std::make_shared<TitleLength>();
  });
  CHECK(registry.names() == std::vector<std::string>{"html_links", "save_pages", "title_length", "warc"});
  std::string error;
  auto chain = registry.make_chain({"html_links", "title_length"}, {}, &error);
  REQUIRE(error.empty());
  const PageAnalysis a = chain.run(html_page());
  REQUIRE(a.items.size() == 1);
  CHECK(a.items[0].json == "{\"length\":4}");  // after html_links read the title
  auto reversed = registry.make_chain({"title_length", "html_links"}, {}, &error);
  CHECK(reversed.run(html_page()).items[0].json == "{\"length\":0}");
  CHECK_FALSE(chain.reads_response_heads());
}

TEST_CASE("the registry: object entries go to the factory of their kind, failures name the entry",
          "[processor_registry]") {
  ProcessorRegistry registry = ProcessorRegistry::builtin();
  std::string error;
  registry.make_chain({R"({"name": "lang", "exec": ["python3"]})"}, {}, &error);
  CHECK(error == R"(processors: an object entry must have one of: (none here) ({"name": "lang", "exec": ["python3"]}))");
  registry.add_object_kind("exec", [](const std::string& entry, const ProcessorChain::Options&) {
    if (entry.find("broken") != std::string::npos)
      throw std::runtime_error("external processor 'broken': cannot start");
    return std::make_shared<NamedByEntry>(entry);
  });
  error.clear();
  auto chain = registry.make_chain({"html_links", R"({"name": "lang", "exec": ["python3"]})"}, {}, &error);
  CHECK(error.empty());
  CHECK(chain.size() == 2);
  CHECK(chain.reads_response_heads());
  registry.make_chain({R"({"name": "broken", "exec": ["nothing"]})"}, {}, &error);
  CHECK(error == "processors: external processor 'broken': cannot start");
  registry.make_chain({R"({"name": "x"})"}, {}, &error);
  CHECK(error.rfind("processors: an object entry must have one of: exec", 0) == 0);
}

}  // namespace actorcrawl
