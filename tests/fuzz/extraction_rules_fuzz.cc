// libFuzzer target for extraction rules (core/extract): a rule set as a
// user or a job body gives it, then a page it runs on. The properties:
//
// - compile() accepts the rules or throws ExtractionRuleError, nothing
//   else, and its cost is linear in the text (the JSON guard, the selector
//   and XPath bounds, XPath names read by a lexer instead of libxml2's
//   debug dump);
// - rules that compile run on any page: one item per matching rule, its
//   kind a rule's name, its JSON an object that parses; every field that
//   could not be evaluated is reported, never thrown.
//
// Input: the rules, then a NUL byte, then the page (without a NUL, the
// page is empty).

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/extract/extraction_rules.h"

namespace {

using namespace actorcrawl;

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "extraction_rules_fuzz: %s\n  %.*s\n", what,
               static_cast<int>(std::min<std::size_t>(detail.size(), 400)), detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input{reinterpret_cast<const char*>(data), size};
  const auto nul = input.find('\0');
  const std::string rules_text{input.substr(0, nul)};
  const std::string_view page = nul == std::string_view::npos ? std::string_view{} : input.substr(nul + 1);
  std::shared_ptr<const ExtractionRules> rules;
  try {
    rules = ExtractionRules::compile(rules_text);
  } catch (const ExtractionRuleError& e) {
    if (std::string_view{e.what()}.empty())
      fail("a refusal without a message", rules_text);
    return 0;
  }
  if (!rules)
    fail("compile() gave no rules and no error", rules_text);
  const auto names = rules->names();
  if (names.size() != rules->size())
    fail("names() and size() disagree", rules_text);
  std::vector<std::string> errors;
  const auto items = rules->extract("http://fuzz.test/dir/page.html", "http://fuzz.test/dir/page.html", page, &errors);
  if (items.size() > rules->size())
    fail("more items than rules", rules_text);
  for (const auto& item : items) {
    if (std::find(names.begin(), names.end(), item.kind) == names.end())
      fail("an item whose kind is no rule's name", item.kind);
    const auto parsed = nlohmann::json::parse(item.json, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object())
      fail("an item that is not a JSON object", item.json);
  }
  for (const auto& error : errors)
    if (error.empty())
      fail("an empty field error", rules_text);
  return 0;
}
