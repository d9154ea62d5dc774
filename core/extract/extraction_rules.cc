#include "core/extract/extraction_rules.h"

#include "core/extract/xpath_watchdog.h"
#include "core/web/json_guard.h"

#include <re2/re2.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "core/extract/css_selector.h"
#include "core/extract/libxml_html.h"
#include "core/extract/message_quote.h"
#include "core/web/url.h"

namespace actorcrawl {

using ordered_json = nlohmann::ordered_json;

struct ExtractionRules::Field {
  std::string name;
  std::string xpath;  // as written, or translated from the CSS selector
  bool all = false;
  std::unique_ptr<RE2> regex;
  bool url = false;
};

struct ExtractionRules::Rule {
  std::string name;
  std::unique_ptr<RE2> urls;  // null: every page
  std::vector<Field> fields;
};

// One compiled XPath per field of every rule, in rule and field order.
class ExtractionRules::CompiledSet {
 public:
  std::vector<CompiledXPath> fields;
};

namespace {

// "a string", "an object", "null": what a message says was found.
std::string json_type(const ordered_json& v) {
  if (v.is_null())
    return "null";
  return std::string(v.is_object() || v.is_array() ? "an " : "a ") + v.type_name();
}

bool is_rule_name(const std::string& name) {
  if (name.empty())
    return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '-'))
      return false;
  return true;
}

std::unique_ptr<RE2> compile_regex(const std::string& pattern, const std::string& where) {
  RE2::Options options;
  // A bad pattern is reported to the caller; RE2 would also print it.
  options.set_log_errors(false);
  auto re = std::make_unique<RE2>(pattern, options);
  if (!re->ok())
    throw ExtractionRuleError(where + ": invalid regular expression '" + quote_for_message(pattern) +
                              "': " + quote_for_message(re->error()));
  return re;
}

// Trimmed of leading and trailing White_Space code points (ICU).
std::string_view trim_unicode_whitespace(std::string_view s) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(s.data());
  std::int32_t begin = 0;
  std::int32_t end = static_cast<std::int32_t>(s.size());
  UChar32 c;
  for (std::int32_t next = begin; begin < end; begin = next) {
    U8_NEXT(bytes, next, end, c);
    if (c < 0 || !u_isUWhiteSpace(c))
      break;
  }
  for (std::int32_t previous = end; end > begin; end = previous) {
    U8_PREV(bytes, begin, previous, c);
    if (c < 0 || !u_isUWhiteSpace(c))
      break;
  }
  return s.substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
}

}  // namespace

ExtractionRules::ExtractionRules() = default;
ExtractionRules::~ExtractionRules() = default;

namespace {

// One field of a rule; `where` names it in messages.
ExtractionRules::Field read_field(const std::string& name, const ordered_json& options, const std::string& where) {
  if (!options.is_object())
    throw ExtractionRuleError(where + ": expected an object with css or xpath, found " + json_type(options));
  for (const auto& [key, value] : options.items())
    if (key != "css" && key != "xpath" && key != "all" && key != "regex" && key != "url")
      throw ExtractionRuleError(where + ": unknown option '" + quote_for_message(key) +
                                "' (allowed: css, xpath, all, regex, url)");
  const auto css = options.find("css");
  const auto xpath = options.find("xpath");
  if ((css == options.end()) == (xpath == options.end()))
    throw ExtractionRuleError(where + ": needs exactly one of 'css' and 'xpath'");
  const bool is_css = css != options.end();
  const ordered_json& selector = is_css ? *css : *xpath;
  if (!selector.is_string() || selector.get<std::string>().empty())
    throw ExtractionRuleError(where + ": '" + (is_css ? "css" : "xpath") + "' must be a non-empty string, found " +
                              (selector.is_string() ? std::string("\"\"") : json_type(selector)));
  ExtractionRules::Field field;
  field.name = name;
  const std::string text = selector.get<std::string>();
  if (text.size() > ExtractionRules::kMaxSelectorBytes)
    throw ExtractionRuleError(where + ": the " + (is_css ? "CSS selector" : "XPath") + " is " +
                              std::to_string(text.size()) + " bytes long, over the limit of " +
                              std::to_string(ExtractionRules::kMaxSelectorBytes));
  try {
    field.xpath = is_css ? css_to_xpath(text) : text;
  } catch (const CssSelectorError& e) {
    throw ExtractionRuleError(where + ": invalid " + e.what());
  }
  try {
    compile_xpath(field.xpath);  // a check: each thread compiles its own (take_compiled)
  } catch (const XPathCompileError& e) {
    if (is_css)  // the translator's fault, not the user's
      throw ExtractionRuleError(where + ": CSS selector '" + quote_for_message(text) + "' translates to XPath '" +
                                quote_for_message(field.xpath) + "', which does not compile: " + e.what());
    throw ExtractionRuleError(where + ": invalid XPath '" + quote_for_message(text) + "': " + e.what());
  }
  for (const auto& [flag, value] : {std::pair{"all", &field.all}, std::pair{"url", &field.url}}) {
    const auto it = options.find(flag);
    if (it == options.end())
      continue;
    if (!it->is_boolean())
      throw ExtractionRuleError(where + ": '" + flag + "' must be true or false, found " + json_type(*it));
    *value = it->get<bool>();
  }
  if (const auto regex = options.find("regex"); regex != options.end()) {
    if (!regex->is_string())
      throw ExtractionRuleError(where + ": 'regex' must be a string (an RE2 pattern), found " + json_type(*regex));
    field.regex = compile_regex(regex->get<std::string>(), where);
  }
  return field;
}

// The rule at `number` (from 1) of the list; `names` holds the names of
// the rules before it, with their numbers.
ExtractionRules::Rule read_rule(const ordered_json& spec, std::size_t number,
                                std::unordered_map<std::string, std::size_t>& names) {
  const std::string place = "#" + std::to_string(number);
  std::string label = "extract rule " + place;
  if (!spec.is_object())
    throw ExtractionRuleError(label + ": expected an object with name, urls and fields, found " + json_type(spec));
  ExtractionRules::Rule rule;
  const auto name = spec.find("name");
  if (name == spec.end())
    throw ExtractionRuleError(label + ": 'name' is missing");
  if (!name->is_string())
    throw ExtractionRuleError(label + ": 'name' must be a string, found " + json_type(*name));
  rule.name = name->get<std::string>();
  if (!is_rule_name(rule.name))
    throw ExtractionRuleError(label + ": name '" + quote_for_message(rule.name) +
                              "' must be letters, digits, '_', '.' or '-' (at least one)");
  label = "extract rule '" + rule.name + "'";
  if (const auto [it, fresh] = names.emplace(rule.name, number); !fresh)
    throw ExtractionRuleError(label + " (" + place + "): the name is taken by rule #" + std::to_string(it->second));
  for (const auto& [key, value] : spec.items())
    if (key != "name" && key != "urls" && key != "fields")
      throw ExtractionRuleError(label + ": unknown key '" + quote_for_message(key) + "' (allowed: name, urls, fields)");

  if (const auto urls = spec.find("urls"); urls != spec.end()) {
    if (!urls->is_string())
      throw ExtractionRuleError(label + ": 'urls' must be a string (an RE2 pattern), found " + json_type(*urls));
    rule.urls = compile_regex(urls->get<std::string>(), label + ", urls");
  }
  const auto fields = spec.find("fields");
  if (fields == spec.end())
    throw ExtractionRuleError(label + ": 'fields' is missing");
  if (!fields->is_object() || fields->empty())
    throw ExtractionRuleError(label + ": 'fields' must be an object of one or more fields, found " +
                              (fields->is_object() ? std::string("an empty object") : json_type(*fields)));
  for (const auto& [field_name, options] : fields->items()) {
    if (field_name.empty())
      throw ExtractionRuleError(label + ": a field has an empty name");
    rule.fields.push_back(read_field(field_name, options, label + ", field '" + quote_for_message(field_name) + "'"));
  }
  return rule;
}

}  // namespace

std::shared_ptr<const ExtractionRules> ExtractionRules::compile(const std::string& rules_json) {
  init_libxml();
  if (const std::string problem = json_shape_problem(rules_json); !problem.empty())
    throw ExtractionRuleError("extract rules: the JSON is " + problem);
  ordered_json document;
  try {
    document = ordered_json::parse(rules_json);
  } catch (const ordered_json::exception& e) {
    throw ExtractionRuleError(std::string("extract rules: not JSON: ") + e.what());
  }
  if (!document.is_array())
    throw ExtractionRuleError("extract rules: expected a list of rules, found " + json_type(document));
  std::shared_ptr<ExtractionRules> rules(new ExtractionRules);
  std::unordered_map<std::string, std::size_t> names;
  for (std::size_t i = 0; i < document.size(); ++i)
    rules->rules_.push_back(read_rule(document[i], i + 1, names));
  // The first set of compiled expressions, for the first thread.
  rules->give_back(rules->take_compiled());
  return rules;
}

std::size_t ExtractionRules::size() const { return rules_.size(); }

std::vector<std::string> ExtractionRules::names() const {
  std::vector<std::string> out;
  for (const auto& rule : rules_)
    out.push_back(rule.name);
  return out;
}

bool ExtractionRules::matches(std::string_view final_url) const {
  for (const auto& rule : rules_)
    if (!rule.urls || RE2::PartialMatch(final_url, *rule.urls))
      return true;
  return false;
}

std::unique_ptr<ExtractionRules::CompiledSet> ExtractionRules::take_compiled() const {
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (!pool_.empty()) {
      auto set = std::move(pool_.back());
      pool_.pop_back();
      return set;
    }
  }
  // Another thread holds every set (or this is the first): this one gets
  // its own. compile() compiled each expression already, so this cannot
  // fail.
  auto set = std::make_unique<CompiledSet>();
  for (const auto& rule : rules_)
    for (const auto& field : rule.fields) set->fields.push_back(compile_xpath(field.xpath));
  return set;
}

void ExtractionRules::give_back(std::unique_ptr<CompiledSet> set) const {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  pool_.push_back(std::move(set));
}

// Hands a compiled set back to the pool when extract() ends, however it ends.
class ExtractionRules::CompiledLease {
 public:
  explicit CompiledLease(const ExtractionRules& rules) : rules_(rules), set_(rules.take_compiled()) {}
  ~CompiledLease() { rules_.give_back(std::move(set_)); }
  CompiledLease(const CompiledLease&) = delete;
  CompiledLease& operator=(const CompiledLease&) = delete;
  xmlXPathCompExpr* operator[](std::size_t i) const { return set_->fields[i].get(); }

 private:
  const ExtractionRules& rules_;
  std::unique_ptr<CompiledSet> set_;
};

namespace {

struct XPathContextDeleter {
  void operator()(xmlXPathContext* context) const { xmlXPathFreeContext(context); }
};
struct XPathObjectDeleter {
  void operator()(xmlXPathObject* object) const { xmlXPathFreeObject(object); }
};

// One field's values on one page, by the steps in extraction_rules.h.
class FieldValues {
 public:
  FieldValues(const RE2* regex, const std::optional<Url>* base, bool all, std::size_t byte_budget)
      : regex_(regex), base_(base), all_(all), byte_budget_(byte_budget) {}

  // Takes one raw value; false once no more are wanted (the first value
  // for a single field, or the byte budget spent).
  bool add(std::string_view raw) {
    std::string_view value = trim_unicode_whitespace(raw);
    if (regex_ != nullptr) {
      re2::StringPiece groups[2];
      const int wanted = regex_->NumberOfCapturingGroups() > 0 ? 2 : 1;
      if (!regex_->Match(value, 0, value.size(), RE2::UNANCHORED, groups, wanted))
        return true;
      const re2::StringPiece& kept = groups[wanted - 1];
      if (kept.data() == nullptr)  // an optional group that took no part
        return true;
      value = std::string_view(kept.data(), kept.size());
    }
    std::string text;
    if (base_ != nullptr) {
      if (value.empty() || !base_->has_value())
        return true;
      const auto resolved = (*base_)->resolve(value);
      if (!resolved)
        return true;
      text = resolved->str();
    } else {
      text = std::string(value);
    }
    if (text.empty())
      return true;
    if (bytes_ + text.size() > byte_budget_) {
      over_budget_ = true;
      return false;
    }
    bytes_ += text.size();
    values_.push_back(std::move(text));
    return all_;
  }

  bool over_budget() const { return over_budget_; }

  ordered_json result() const {
    if (all_)
      return ordered_json(values_);
    return values_.empty() ? ordered_json(nullptr) : ordered_json(values_.front());
  }

 private:
  const RE2* regex_;
  const std::optional<Url>* base_;
  bool all_;
  std::size_t byte_budget_;
  std::size_t bytes_ = 0;
  bool over_budget_ = false;
  std::vector<std::string> values_;
};

// XPath's string() of a number: integers without a fraction, NaN,
// Infinity.
std::string xpath_number_string(double number) {
  xmlChar* text = xmlXPathCastNumberToString(number);
  std::string out(text != nullptr ? reinterpret_cast<const char*>(text) : "NaN");
  xmlFree(text);
  return out;
}

ordered_json number_json(double number) {
  if (!std::isfinite(number))
    return nullptr;
  if (number == std::trunc(number) && std::fabs(number) < 9007199254740992.0)  // 2^53: exact as an integer
    return static_cast<std::int64_t>(number);
  return number;
}

}  // namespace

std::vector<ExtractedItem> ExtractionRules::extract(std::string_view final_url, std::string_view base_url,
                                                    std::string_view html_utf8, std::vector<std::string>* field_errors,
                                                    const std::atomic<bool>* stop) const {
  std::vector<const Rule*> matching;
  std::vector<std::size_t> first_field;  // index of each matching rule's first field in the compiled set
  std::size_t field_index = 0;
  for (const auto& rule : rules_) {
    if (!rule.urls || RE2::PartialMatch(final_url, *rule.urls)) {
      matching.push_back(&rule);
      first_field.push_back(field_index);
    }
    field_index += rule.fields.size();
  }
  if (matching.empty())
    return {};

  LibxmlErrorScope errors;
  const HtmlTree tree = parse_html_tree(html_utf8);
  // Document order as a number in each element: libxml2 then sorts node
  // sets by comparing numbers instead of walking the tree.
  xmlXPathOrderDocElems(tree.get());
  const CompiledLease compiled(*this);
  std::unique_ptr<xmlXPathContext, XPathContextDeleter> context(xmlXPathNewContext(tree.get()));
  if (!context)
    throw std::bad_alloc();
  const std::optional<Url> base = Url::parse(base_url);
  const unsigned long op_limit = kXPathOpsFloor + kXPathOpsPerByte * static_cast<unsigned long>(html_utf8.size());
  // A field can quote the page, not repeat it over and over (an `all` of
  // nested elements would give each one's text again with its parent's).
  const std::size_t byte_budget = 2 * html_utf8.size() + 65536;
  const std::chrono::microseconds cpu_budget{kFieldCpuFloorUs + kFieldCpuNsPerByte *
                                                                  static_cast<std::int64_t>(html_utf8.size()) / 1000};

  std::vector<ExtractedItem> items;
  for (std::size_t r = 0; r < matching.size(); ++r) {
    const Rule& rule = *matching[r];
    ordered_json object = ordered_json::object();
    for (std::size_t f = 0; f < rule.fields.size(); ++f) {
      const Field& field = rule.fields[f];
      const auto report = [&](const std::string& why) {
        if (field_errors != nullptr)
          field_errors->push_back("rule '" + rule.name + "', field '" + field.name + "': " + why);
      };
      FieldValues values(field.regex.get(), field.url ? &base : nullptr, field.all, byte_budget);
      if (stop != nullptr && stop->load(std::memory_order_relaxed)) {
        report("not evaluated: the crawl is stopping");
        object[field.name] = values.result();
        continue;
      }
      context->node = reinterpret_cast<xmlNode*>(tree.get());
      context->opCount = 0;
      context->opLimit = op_limit;
      errors.take();
      std::unique_ptr<xmlXPathObject, XPathObjectDeleter> result;
      std::string stopped_for;
      {
        const auto watch = XPathWatchdog::instance().watch(context.get(), cpu_budget, stop);
        result.reset(xmlXPathCompiledEval(compiled[first_field[r] + f], context.get()));
        stopped_for = watch->stopped_for();
      }
      if (!stopped_for.empty()) {
        report(stopped_for == "the crawl stopping"
                 ? std::string("XPath evaluation stopped: the crawl is stopping")
                 : "XPath evaluation stopped: past its CPU budget of " + std::to_string(cpu_budget.count() / 1000) +
                     " ms");
        object[field.name] = values.result();
        continue;
      }
      if (!result) {
        const std::string why = errors.take();
        report("XPath evaluation failed: " + (why.empty() ? std::string("no result") : why));
        object[field.name] = values.result();
        continue;
      }
      // Numbers and booleans stay JSON's unless text is asked of them.
      const bool keeps_xpath_type = field.regex == nullptr && !field.url;
      switch (result->type) {
        case XPATH_NODESET:
          if (result->nodesetval != nullptr)
            for (int i = 0; i < result->nodesetval->nodeNr; ++i)
              if (!values.add(node_string_value(result->nodesetval->nodeTab[i])))
                break;
          object[field.name] = values.result();
          break;
        case XPATH_STRING:
          values.add(result->stringval != nullptr ? reinterpret_cast<const char*>(result->stringval) : "");
          object[field.name] = values.result();
          break;
        case XPATH_NUMBER:
          if (keeps_xpath_type) {
            ordered_json n = number_json(result->floatval);
            object[field.name] = field.all ? (n.is_null() ? ordered_json::array() : ordered_json::array({n})) : n;
          } else {
            values.add(xpath_number_string(result->floatval));
            object[field.name] = values.result();
          }
          break;
        case XPATH_BOOLEAN:
          if (keeps_xpath_type) {
            const ordered_json b = result->boolval != 0;
            object[field.name] = field.all ? ordered_json::array({b}) : b;
          } else {
            values.add(result->boolval != 0 ? "true" : "false");
            object[field.name] = values.result();
          }
          break;
        default:  // XSLT trees and XPointer types: not from XPath 1.0 alone
          object[field.name] = values.result();
          break;
      }
      if (values.over_budget())
        report("values stopped at " + std::to_string(byte_budget) + " bytes (twice the page, plus 64 kB)");
    }
    items.push_back(ExtractedItem{rule.name, object.dump(-1, ' ', false, ordered_json::error_handler_t::replace)});
  }
  return items;
}

}  // namespace actorcrawl
