// One ExtractionRules shared by several threads, as the Processor's
// workers will share it: every thread gets what one thread alone gets, and
// libxml2's per-thread error handlers are each thread's own again after.
// Run under the ASan/UBSan build (ACTORCRAWL_SANITIZE) as well.
#include <catch2/catch.hpp>

#include <libxml/xmlerror.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/extract/extraction_rules.h"

namespace actorcrawl {
namespace {

// Functions (count, contains, concat, normalize-space, string-length) are
// what libxml2 caches inside a compiled expression when it first runs it.
constexpr const char* kRules = R"~([
  {"name": "page", "fields": {
    "title": {"css": "title::text"},
    "links": {"css": "a::attr(href)", "all": true, "url": true},
    "items": {"css": "ul.list > li.item:nth-child(odd)", "all": true},
    "n":     {"xpath": "count(//li[contains(concat(' ', normalize-space(@class), ' '), ' item ')])"},
    "long":  {"xpath": "//li[string-length(.) > 6]", "all": true},
    "price": {"xpath": "//span[@class='price']", "regex": "([0-9]+)"},
    "slow":  {"xpath": "//li[count(//li) > 0 and count(//li) < 0]", "all": true}
  }},
  {"name": "other", "urls": "/other/", "fields": {"h": {"css": "h1"}}}])~";

std::string page_number(int i) {
  std::string page = "<title>Page " + std::to_string(i) + "</title><h1>h</h1><ul class=list>";
  // Every sixth page is long enough for "slow" to pass the operation limit.
  const int length = i % 6 == 5 ? 1100 : 20 + i % 7;
  for (int k = 0; k < length; ++k)
    page += "<li class='item x'>item " + std::to_string(i * 100 + k) + "</li><a href=/p/" + std::to_string(k) + ">l</a>";
  return page + "</ul><span class=price>EUR " + std::to_string(i) + ".50</span>";
}

std::string url_number(int i) {
  return "https://site.example/" + std::string(i % 2 == 0 ? "other/" : "") + std::to_string(i);
}

struct Result {
  std::vector<ExtractedItem> items;
  std::vector<std::string> errors;
};

Result run(const ExtractionRules& rules, int i) {
  Result r;
  r.items = rules.extract(url_number(i), url_number(i), page_number(i), &r.errors);
  return r;
}

bool same(const Result& a, const Result& b) {
  if (a.items.size() != b.items.size() || a.errors != b.errors)
    return false;
  for (std::size_t k = 0; k < a.items.size(); ++k)
    if (a.items[k].kind != b.items[k].kind || a.items[k].json != b.items[k].json)
      return false;
  return true;
}

std::atomic<int> foreign_errors{0};
void count_foreign_error(void*, const char*, ...) { ++foreign_errors; }

}  // namespace

TEST_CASE("concurrency: threads sharing one rule set get what one thread gets", "[extract][threads]") {
  const auto rules = ExtractionRules::compile(kRules);
  constexpr int kPages = 24;
  std::vector<Result> expected;
  for (int i = 0; i < kPages; ++i) expected.push_back(run(*rules, i));
  // The pages differ, and some fields fail (the operation limit), so both
  // paths run in parallel.
  CHECK(expected[0].items[0].json != expected[1].items[0].json);
  CHECK(expected[0].items.size() == 2);
  CHECK(expected[1].items.size() == 1);
  CHECK(expected[0].errors.empty());
  REQUIRE(expected[5].errors.size() == 1);
  CHECK(expected[5].errors[0] == "rule 'page', field 'slow': XPath evaluation failed: Operation limit exceeded");

  constexpr int kThreads = 8;
  constexpr int kRounds = 12;
  std::atomic<int> mismatches{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go) std::this_thread::yield();
      for (int round = 0; round < kRounds; ++round) {
        const int i = (t * 7 + round) % kPages;
        if (!same(run(*rules, i), expected[i]))
          ++mismatches;
      }
    });
  }
  go = true;
  for (auto& thread : threads) thread.join();
  CHECK(mismatches == 0);
}

TEST_CASE("concurrency: a thread's own libxml2 error handler is back after extract", "[extract][threads]") {
  const auto rules = ExtractionRules::compile(kRules);
  std::thread worker([&] {
    xmlSetGenericErrorFunc(nullptr, &count_foreign_error);
    std::vector<std::string> errors;
    rules->extract(url_number(1), url_number(1), "<li class=item>1</li><p>broken <b><i>nesting</b></i>", &errors);
    CHECK(xmlGenericError == &count_foreign_error);
    CHECK(xmlStructuredError == nullptr);
    xmlGenericError(xmlGenericErrorContext, "after");
  });
  worker.join();
  // Only the thread's own message reached its handler: extract's went to
  // extract.
  CHECK(foreign_errors == 1);
}

}  // namespace actorcrawl
