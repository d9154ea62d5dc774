// Declarative extraction rules: which pages to take items from and which
// fields to fill, by CSS selector or XPath 1.0, evaluated with libxml2 (the
// engine under Scrapy's parsel and lxml). docs/plugins.md is the user's
// side of this; in short, rules are a JSON array (YAML in the config):
//
//   [{"name": "product", "urls": "/product/",
//     "fields": {"title": {"css": "h1::text"},
//                "price": {"xpath": "//span[@class='price']/text()", "regex": "[0-9]+[.][0-9]+"},
//                "tags":  {"css": "ul.tags li::text", "all": true},
//                "image": {"css": "img.main::attr(src)", "url": true}}}]
//
// A field's values, in document order:
//   1. its selector's matches: an element gives its string-value (all its
//      descendant text), a text node its text, an attribute its value; an
//      XPath that gives a string, number or boolean gives that one value;
//   2. each trimmed of leading and trailing Unicode whitespace (White_Space,
//      so &nbsp; too); inner whitespace is kept;
//   3. with `regex` (RE2, searched): the first capture group when the
//      pattern has one, else the whole match; a value it does not match
//      is dropped;
//   4. with `url: true`: resolved against the page's base URL as links are
//      (Url::resolve) and normalized; a value that gives no http(s) URL is
//      dropped;
//   5. an empty value is dropped.
// With `type` (int, float, bool; url as `url: true`) each value left is
// converted, or dropped when it does not convert.
// `all: true` gives the list of every value left ([] when none); otherwise
// the field is the first value left, or null (so whitespace-only text
// before the text that matters is skipped, as is a node the regex or url
// drops). An XPath number or boolean
// with neither regex nor url stays a JSON number (integral ones as
// integers; NaN and infinities null) or boolean; with either, it is first
// its XPath string (string(3) is "3").
//
// Then `default` stands in for no value (null, or [] with all), and an
// item with no value for a `required` field is not kept (counted).
// A rule with `each` (a selector) gives one item per element it selects,
// its fields evaluated with the element as the context node; a field
// `{each, fields}` is a list of objects read the same way from each
// element it selects. The elements of a rule share one XPath budget.
//
// Safe to share: extract() is const and may run on several threads at once.
#pragma once

#include <cstddef>
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/crawl/records.h"

namespace actorcrawl {

// A rule set that does not compile. The message names the rule (by name,
// or by its 1-based place when it has no usable name) and the field or
// key, e.g.
//   extract rule 'product', field 'price': invalid XPath '//span[': Invalid predicate at position 7
class ExtractionRuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ExtractionRules {
 public:
  // How much XPath work one field may do on one page: libxml2's operation
  // count (xmlXPathContext::opLimit: nodes visited, operations evaluated),
  // this many per byte of the page plus the floor. Ordinary rules stay
  // under 3 per byte even on hostile pages (tests/unit/extract); a rule
  // that would do more (a predicate that walks the whole page for each
  // node, say) stops there: the field is null ([] for all) and reported.
  // libxml2 does not count its node-set merges, which user XPath like
  // //div//p can make quadratic; translated CSS avoids them.
  static constexpr unsigned long kXPathOpsPerByte = 64;
  static constexpr unsigned long kXPathOpsFloor = 1'000'000;
  // And how much CPU time, which counts what the operation count does not
  // (node-set merges; xpath_watchdog.h): this floor plus this much per
  // byte of the page (512 ms for a page of 1 MiB). Ordinary rules take a
  // few milliseconds a field on such a page.
  static constexpr std::int64_t kFieldCpuFloorUs = 250'000;
  static constexpr std::int64_t kFieldCpuNsPerByte = 250;
  // The longest selector a field may give, CSS or XPath: rules are
  // written by people, and a rule's cost to check is linear in it.
  static constexpr std::size_t kMaxSelectorBytes = 4096;

  // rules_json: a JSON array of rule objects. Everything is checked here:
  // keys, types, names, every selector, XPath and regex; throws
  // ExtractionRuleError.
  static std::shared_ptr<const ExtractionRules> compile(const std::string& rules_json);

  ~ExtractionRules();
  ExtractionRules(const ExtractionRules&) = delete;
  ExtractionRules& operator=(const ExtractionRules&) = delete;

  // Whether some rule's `urls` pattern is found in final_url (a rule
  // without one matches every page).
  bool matches(std::string_view final_url) const;

  // One item per rule matching final_url, in rule order: kind = the rule's
  // name, json = a JSON object of its fields in the order the rule lists
  // them (valid UTF-8: invalid bytes become U+FFFD). The HTML is parsed
  // only when some rule matches. base_url: what `url: true` values resolve
  // against (the page's <base href> resolved, or its final URL).
  // html_utf8: the page as UTF-8 text.
  //
  // field_errors, when given, receives one line per field that could not
  // be evaluated on this page ("rule 'product', field 'price': XPath
  // evaluation failed: Operation limit exceeded"), which is then null ([]
  // for all), or whose values were cut at twice the page's size plus
  // 64 kB (an `all` of nested elements repeats each one's text in its
  // parent's).
  //
  // `stop`, when given and turned true, stops the evaluation under way and
  // skips the fields left (each reported): a crawl that is stopping does
  // not wait for a costly page.
  //
  // incomplete_items, when given, receives one line per rule that read
  // items without a value for a required field (those are not kept):
  // "rule 'product': 2 items without the required field 'price' (or
  // another), not kept".
  std::vector<ExtractedItem> extract(std::string_view final_url, std::string_view base_url,
                                     std::string_view html_utf8,
                                     std::vector<std::string>* field_errors = nullptr,
                                     const std::atomic<bool>* stop = nullptr,
                                     std::vector<std::string>* incomplete_items = nullptr) const;

  std::size_t size() const;  // rules
  // The rules' names, in order: the kinds of the items they write.
  std::vector<std::string> names() const;

  // A rule and a field as compile() read them (extraction_rules.cc).
  struct Field;
  struct Rule;

 private:
  class CompiledSet;
  class CompiledLease;

  ExtractionRules();

  // Compiled XPaths for every field, one set per thread that is using
  // them at the moment (see core/extract/libxml_html.h: evaluation writes
  // to the compiled expression).
  std::unique_ptr<CompiledSet> take_compiled() const;
  void give_back(std::unique_ptr<CompiledSet> set) const;

  std::vector<Rule> rules_;
  // Every XPath of every rule (each, fields, nested fields), as compiled.
  std::vector<std::string> xpaths_;
  mutable std::mutex pool_mutex_;
  mutable std::vector<std::unique_ptr<CompiledSet>> pool_;
};

}  // namespace actorcrawl
