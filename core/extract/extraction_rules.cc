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
#include <functional>
#include <optional>
#include <unordered_map>
#include <utility>

#include "core/extract/css_selector.h"
#include "core/extract/libxml_html.h"
#include "core/extract/message_quote.h"
#include "core/web/ascii.h"
#include "core/web/url.h"
#include "core/web/json_text.h"

namespace actorcrawl {

using ordered_json = nlohmann::ordered_json;

// A value's type, when the field names one: its text converted, or the
// value dropped when it does not convert.
enum class ValueType { text, integer, real, boolean };

struct ExtractionRules::Field {
  std::string name;
  // A value field: its selector's XPath (as written, or translated from the
  // CSS selector). A list field (`each` with `fields`): the elements', each
  // giving one object of `fields`.
  std::string xpath;
  std::size_t xpath_index = 0;  // its place in the compiled set
  bool all = false;
  std::unique_ptr<RE2> regex;
  bool url = false;
  ValueType type = ValueType::text;
  bool typed = false;  // `type` was given (an XPath number is then converted too)
  std::optional<ordered_json> default_value;
  bool required = false;
  std::vector<Field> fields;  // a list field's
  bool is_list() const { return !fields.empty(); }
};

struct ExtractionRules::Rule {
  std::string name;
  std::unique_ptr<RE2> urls;  // null: every page
  // `each`: one item per element it selects, its fields read from there.
  std::optional<std::size_t> each_index;
  std::vector<Field> fields;
};

// One compiled XPath per expression of every rule (ExtractionRules::xpaths_).
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

// A selector: {css: ...} / {xpath: ...} keys of `options` (or, for `each`,
// a string: CSS), checked and given as XPath.
std::string read_selector(const ordered_json& options, const std::string& where) {
  if (options.is_string())
    return read_selector(ordered_json{{"css", options}}, where);
  const auto css = options.find("css");
  const auto xpath = options.find("xpath");
  if ((css == options.end()) == (xpath == options.end()))
    throw ExtractionRuleError(where + ": needs exactly one of 'css' and 'xpath'");
  const bool is_css = css != options.end();
  const ordered_json& selector = is_css ? *css : *xpath;
  if (!selector.is_string() || selector.get<std::string>().empty())
    throw ExtractionRuleError(where + ": '" + (is_css ? "css" : "xpath") + "' must be a non-empty string, found " +
                              (selector.is_string() ? std::string("\"\"") : json_type(selector)));
  const std::string text = selector.get<std::string>();
  if (text.size() > ExtractionRules::kMaxSelectorBytes)
    throw ExtractionRuleError(where + ": the " + (is_css ? "CSS selector" : "XPath") + " is " +
                              std::to_string(text.size()) + " bytes long, over the limit of " +
                              std::to_string(ExtractionRules::kMaxSelectorBytes));
  std::string translated;
  try {
    translated = is_css ? css_to_xpath(text) : text;
  } catch (const CssSelectorError& e) {
    throw ExtractionRuleError(where + ": invalid " + e.what());
  }
  try {
    compile_xpath(translated);  // a check: each thread compiles its own (take_compiled)
  } catch (const XPathCompileError& e) {
    if (is_css)  // the translator's fault, not the user's
      throw ExtractionRuleError(where + ": CSS selector '" + quote_for_message(text) + "' translates to XPath '" +
                                quote_for_message(translated) + "', which does not compile: " + e.what());
    throw ExtractionRuleError(where + ": invalid XPath '" + quote_for_message(text) + "': " + e.what());
  }
  return translated;
}

// Nesting of list fields, as deep as a page's tables in tables go.
constexpr int kMaxListDepth = 8;

// One field of a rule; `where` names it in messages. Its expressions join
// `xpaths`, in the order extract() evaluates them.
ExtractionRules::Field read_field(const std::string& name, const ordered_json& options, const std::string& where,
                                  std::vector<std::string>& xpaths, int depth);

std::vector<ExtractionRules::Field> read_fields(const ordered_json& fields, const std::string& label,
                                                std::vector<std::string>& xpaths, int depth) {
  if (!fields.is_object() || fields.empty())
    throw ExtractionRuleError(label + ": 'fields' must be an object of one or more fields, found " +
                              (fields.is_object() ? std::string("an empty object") : json_type(fields)));
  std::vector<ExtractionRules::Field> out;
  for (const auto& [field_name, options] : fields.items()) {
    if (field_name.empty())
      throw ExtractionRuleError(label + ": a field has an empty name");
    out.push_back(read_field(field_name, options, label + ", field '" + quote_for_message(field_name) + "'", xpaths,
                             depth));
  }
  return out;
}

ExtractionRules::Field read_field(const std::string& name, const ordered_json& options, const std::string& where,
                                  std::vector<std::string>& xpaths, int depth) {
  if (!options.is_object())
    throw ExtractionRuleError(where + ": expected an object with css or xpath, found " + json_type(options));
  ExtractionRules::Field field;
  field.name = name;
  const bool list = options.contains("each") || options.contains("fields");
  for (const auto& [key, value] : options.items()) {
    const bool known = list ? (key == "each" || key == "fields" || key == "required")
                            : (key == "css" || key == "xpath" || key == "all" || key == "regex" || key == "url" ||
                               key == "type" || key == "default" || key == "required");
    if (!known)
      throw ExtractionRuleError(where + ": unknown option '" + quote_for_message(key) + "' (allowed: " +
                                (list ? "each, fields, required" : "css, xpath, all, regex, url, type, default, required") +
                                ")");
  }
  if (const auto it = options.find("required"); it != options.end()) {
    if (!it->is_boolean())
      throw ExtractionRuleError(where + ": 'required' must be true or false, found " + json_type(*it));
    field.required = it->get<bool>();
  }
  if (list) {
    // {each: SELECTOR, fields: {...}}: a list of objects, one per element.
    if (!options.contains("each") || !options.contains("fields"))
      throw ExtractionRuleError(where + ": a list field needs both 'each' (the elements) and 'fields'");
    if (depth >= kMaxListDepth)
      throw ExtractionRuleError(where + ": list fields nest deeper than " + std::to_string(kMaxListDepth));
    field.xpath = read_selector(options.at("each"), where + ", each");
    field.xpath_index = xpaths.size();
    xpaths.push_back(field.xpath);
    field.fields = read_fields(options.at("fields"), where, xpaths, depth + 1);
    return field;
  }
  field.xpath = read_selector(options, where);
  field.xpath_index = xpaths.size();
  xpaths.push_back(field.xpath);
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
  if (const auto type = options.find("type"); type != options.end()) {
    const std::string t = type->is_string() ? type->get<std::string>() : std::string{};
    field.typed = true;
    if (t == "string")
      field.type = ValueType::text;
    else if (t == "int")
      field.type = ValueType::integer;
    else if (t == "float")
      field.type = ValueType::real;
    else if (t == "bool")
      field.type = ValueType::boolean;
    else if (t == "url")
      field.url = true;
    else
      throw ExtractionRuleError(where + ": 'type' must be one of string, int, float, bool, url, found " +
                                (type->is_string() ? "'" + quote_for_message(t) + "'" : json_type(*type)));
  }
  if (const auto value = options.find("default"); value != options.end())
    field.default_value = *value;
  return field;
}

// The rule at `number` (from 1) of the list; `names` holds the names of
// the rules before it, with their numbers.
ExtractionRules::Rule read_rule(const ordered_json& spec, std::size_t number,
                                std::unordered_map<std::string, std::size_t>& names, std::vector<std::string>& xpaths) {
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
    if (key != "name" && key != "urls" && key != "fields" && key != "each")
      throw ExtractionRuleError(label + ": unknown key '" + quote_for_message(key) +
                                "' (allowed: name, urls, each, fields)");

  if (const auto urls = spec.find("urls"); urls != spec.end()) {
    if (!urls->is_string())
      throw ExtractionRuleError(label + ": 'urls' must be a string (an RE2 pattern), found " + json_type(*urls));
    rule.urls = compile_regex(urls->get<std::string>(), label + ", urls");
  }
  const auto fields = spec.find("fields");
  if (fields == spec.end())
    throw ExtractionRuleError(label + ": 'fields' is missing");
  if (const auto each = spec.find("each"); each != spec.end()) {
    rule.each_index = xpaths.size();
    xpaths.push_back(read_selector(*each, label + ", each"));
  }
  rule.fields = read_fields(*fields, label, xpaths, 1);
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
    rules->rules_.push_back(read_rule(document[i], i + 1, names, rules->xpaths_));
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
  for (const auto& xpath : xpaths_)
    set->fields.push_back(compile_xpath(xpath));
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

// A value as its field's type asks: the text, an integer ("-12", "+3"),
// a number ("1.5", "-2e3", ".5"), a boolean (true/false, yes/no, 1/0, any
// case); nullopt when the text is no such thing.
std::optional<ordered_json> typed_value(std::string text, ValueType type) {
  switch (type) {
    case ValueType::text:
      return ordered_json(std::move(text));
    case ValueType::integer: {
      static const RE2 integer(R"([+-]?[0-9]{1,18})");
      if (!RE2::FullMatch(text, integer))
        return std::nullopt;
      return ordered_json(static_cast<std::int64_t>(std::stoll(text)));
    }
    case ValueType::real: {
      static const RE2 real(R"([+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]{1,3})?)");
      if (text.size() > 64 || !RE2::FullMatch(text, real))
        return std::nullopt;
      const double number = std::strtod(text.c_str(), nullptr);
      if (!std::isfinite(number))
        return std::nullopt;
      return ordered_json(number);
    }
    case ValueType::boolean: {
      const std::string lower = ascii::lowercase(text);
      if (lower == "true" || lower == "yes" || lower == "1")
        return ordered_json(true);
      if (lower == "false" || lower == "no" || lower == "0")
        return ordered_json(false);
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// One field's values on one page, by the steps in extraction_rules.h.
class FieldValues {
 public:
  FieldValues(const RE2* regex, const std::optional<Url>* base, bool all, ValueType type, std::size_t& bytes,
              std::size_t byte_budget)
      : regex_(regex), base_(base), all_(all), type_(type), bytes_(bytes), byte_budget_(byte_budget) {}

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
    auto typed = typed_value(std::move(text), type_);
    if (!typed)
      return true;
    values_.push_back(std::move(*typed));
    return all_;
  }

  bool over_budget() const { return over_budget_; }

  ordered_json result() const {
    if (all_)
      return ordered_json(values_);
    return values_.empty() ? ordered_json(nullptr) : values_.front();
  }

 private:
  const RE2* regex_;
  const std::optional<Url>* base_;
  bool all_;
  ValueType type_;
  std::size_t& bytes_;  // the item's (or page's) bytes so far, shared
  std::size_t byte_budget_;
  bool over_budget_ = false;
  std::vector<ordered_json> values_;
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

namespace {

bool has_no_value(const ordered_json& v) { return v.is_null() || (v.is_array() && v.empty()); }

// The XPaths a field evaluates: its own, and a list field's fields'.
std::size_t expressions_in(const ExtractionRules::Field& field) {
  std::size_t n = 1;
  for (const auto& inner : field.fields)
    n += expressions_in(inner);
  return n;
}

// One budget of XPath work on a page: operations (libxml2's count) and CPU
// time (the watchdog), shared by every evaluation under it: a field of a
// rule that gives one item a page, or the whole of a rule with `each`,
// whose elements and nested lists would otherwise each get a budget of
// their own and together cost the page times its elements. Once spent or
// failed, it evaluates nothing more.
class XPathBudget {
 public:
  XPathBudget(xmlXPathContext* context, unsigned long ops, std::chrono::microseconds cpu,
              const std::atomic<bool>* stop)
      : context_(context), ops_left_(ops), cpu_(cpu), watch_(XPathWatchdog::instance().watch(context, cpu, stop)) {}

  // `expression` evaluated from `node`; null when it failed or the budget
  // is spent (failure() says why; `field` is named with it).
  xmlXPathObject* eval(xmlXPathCompExpr* expression, xmlNode* node, LibxmlErrorScope& errors,
                       const std::string& field) {
    if (!failure_.empty() || stopped(field))
      return nullptr;
    if (ops_left_ == 0) {
      fail(field, "XPath evaluation failed: Operation limit exceeded");
      return nullptr;
    }
    context_->node = node;
    context_->opCount = 0;
    context_->opLimit = ops_left_;
    errors.take();
    xmlXPathObject* result = xmlXPathCompiledEval(expression, context_);
    ops_left_ -= std::min<unsigned long>(ops_left_, context_->opCount);
    if (stopped(field)) {
      xmlXPathFreeObject(result);
      return nullptr;
    }
    if (result == nullptr) {
      const std::string why = errors.take();
      fail(field, "XPath evaluation failed: " + (why.empty() ? std::string("no result") : why));
    }
    return result;
  }

  void fail(const std::string& field, const std::string& why) {
    if (failure_.empty()) {
      failed_field_ = field;
      failure_ = why;
    }
  }
  const std::string& failure() const { return failure_; }
  const std::string& failed_field() const { return failed_field_; }

 private:
  bool stopped(const std::string& field) {
    const std::string why = watch_->stopped_for();
    if (why.empty())
      return false;
    fail(field, why == "the crawl stopping" ? std::string("XPath evaluation stopped: the crawl is stopping")
                                            : "XPath evaluation stopped: past its CPU budget of " +
                                                std::to_string(cpu_.count() / 1000) + " ms");
    return true;
  }

  xmlXPathContext* context_;
  unsigned long ops_left_;
  std::chrono::microseconds cpu_;
  std::unique_ptr<XPathWatchdog::Watch> watch_;
  std::string failure_;
  std::string failed_field_;
};

// Reads a rule's fields from a page's nodes, under one budget at a time.
class ItemReader {
 public:
  using Expressions = std::function<xmlXPathCompExpr*(std::size_t)>;
  ItemReader(Expressions expressions, LibxmlErrorScope& errors, const std::optional<Url>& base,
             std::size_t byte_budget)
      : expressions_(std::move(expressions)), errors_(errors), base_(base), byte_budget_(byte_budget) {}

  // The object of `fields` read from `node`; false when a required field
  // (after its default) has no value.
  bool read_object(const std::vector<ExtractionRules::Field>& fields, xmlNode* node, XPathBudget& budget,
                   std::size_t& bytes, ordered_json& object) {
    bool complete = true;
    for (const auto& field : fields)
      complete = read_field(field, node, budget, bytes, object) && complete;
    return complete;
  }

  // One field into `object`, its default applied; false when it is
  // required and has no value.
  bool read_field(const ExtractionRules::Field& field, xmlNode* node, XPathBudget& budget, std::size_t& bytes,
                  ordered_json& object) {
    ordered_json value = field.is_list() ? read_list(field, node, budget, bytes) : read_value(field, node, budget, bytes);
    if (has_no_value(value) && field.default_value)
      value = *field.default_value;
    object[field.name] = std::move(value);
    if (!has_no_value(object[field.name]) || !field.required)
      return true;
    if (missing_.empty())
      missing_ = field.name;
    return false;
  }

  // The nodes `xpath_index` selects from `node` that are elements.
  std::vector<xmlNode*> elements(std::size_t xpath_index, xmlNode* node, XPathBudget& budget,
                                 const std::string& field) {
    std::vector<xmlNode*> out;
    std::unique_ptr<xmlXPathObject, XPathObjectDeleter> result(
      budget.eval(expressions_(xpath_index), node, errors_, field));
    if (result && result->type == XPATH_NODESET && result->nodesetval != nullptr)
      for (int i = 0; i < result->nodesetval->nodeNr; ++i)
        if (result->nodesetval->nodeTab[i]->type == XML_ELEMENT_NODE)
          out.push_back(result->nodesetval->nodeTab[i]);
    return out;
  }

  bool over_budget() const { return over_budget_; }
  // Whether values were cut at the byte budget since the last call.
  bool take_over_budget() { return std::exchange(over_budget_, false); }
  // The first required field found without a value, since the last call.
  std::string take_missing() { return std::exchange(missing_, std::string{}); }

 private:
  ordered_json read_list(const ExtractionRules::Field& field, xmlNode* node, XPathBudget& budget,
                         std::size_t& bytes) {
    ordered_json list = ordered_json::array();
    for (xmlNode* element : elements(field.xpath_index, node, budget, field.name)) {
      ordered_json object = ordered_json::object();
      const std::string outer_missing = missing_;
      const bool complete = read_object(field.fields, element, budget, bytes, object);
      missing_ = outer_missing;  // an incomplete entry of a list is left out, not the item
      if (!budget.failure().empty() || over_budget_)
        break;
      if (complete)
        list.push_back(std::move(object));
    }
    return list;
  }

  ordered_json read_value(const ExtractionRules::Field& field, xmlNode* node, XPathBudget& budget,
                          std::size_t& bytes) {
    FieldValues values(field.regex.get(), field.url ? &base_ : nullptr, field.all, field.type, bytes, byte_budget_);
    std::unique_ptr<xmlXPathObject, XPathObjectDeleter> result(
      budget.eval(expressions_(field.xpath_index), node, errors_, field.name));
    if (!result)
      return values.result();
    // Numbers and booleans stay JSON's unless text or a type is asked of them.
    const bool keeps_xpath_type = field.regex == nullptr && !field.url && !field.typed;
    ordered_json value;
    switch (result->type) {
      case XPATH_NODESET:
        if (result->nodesetval != nullptr)
          for (int i = 0; i < result->nodesetval->nodeNr; ++i)
            if (!values.add(node_string_value(result->nodesetval->nodeTab[i])))
              break;
        value = values.result();
        break;
      case XPATH_STRING:
        values.add(result->stringval != nullptr ? reinterpret_cast<const char*>(result->stringval) : "");
        value = values.result();
        break;
      case XPATH_NUMBER:
        if (keeps_xpath_type) {
          ordered_json n = number_json(result->floatval);
          value = field.all ? (n.is_null() ? ordered_json::array() : ordered_json::array({n})) : n;
        } else {
          values.add(xpath_number_string(result->floatval));
          value = values.result();
        }
        break;
      case XPATH_BOOLEAN:
        if (keeps_xpath_type) {
          const ordered_json b = result->boolval != 0;
          value = field.all ? ordered_json::array({b}) : b;
        } else {
          values.add(result->boolval != 0 ? "true" : "false");
          value = values.result();
        }
        break;
      default:  // XSLT trees and XPointer types: not from XPath 1.0 alone
        value = values.result();
        break;
    }
    over_budget_ = over_budget_ || values.over_budget();
    return value;
  }

  Expressions expressions_;
  LibxmlErrorScope& errors_;
  const std::optional<Url>& base_;
  std::size_t byte_budget_;
  bool over_budget_ = false;
  std::string missing_;
};

}  // namespace

std::vector<ExtractedItem> ExtractionRules::extract(std::string_view final_url, std::string_view base_url,
                                                    std::string_view html_utf8, std::vector<std::string>* field_errors,
                                                    const std::atomic<bool>* stop,
                                                    std::vector<std::string>* incomplete_items) const {
  std::vector<const Rule*> matching;
  for (const auto& rule : rules_)
    if (!rule.urls || RE2::PartialMatch(final_url, *rule.urls))
      matching.push_back(&rule);
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
  xmlNode* document = reinterpret_cast<xmlNode*>(tree.get());
  ItemReader reader([&](std::size_t i) { return compiled[i]; }, errors, base, byte_budget);
  const bool stopping_flag = stop != nullptr;
  const auto stopping = [&] { return stopping_flag && stop->load(std::memory_order_relaxed); };
  const auto report = [&](const Rule& rule, const std::string& field, const std::string& why) {
    if (field_errors != nullptr)
      field_errors->push_back("rule '" + rule.name + "', field '" + field + "': " + why);
  };
  const auto over_budget_text = "values stopped at " + std::to_string(byte_budget) + " bytes (twice the page, plus 64 kB)";

  std::vector<ExtractedItem> items;
  const auto keep = [&](const Rule& rule, const ordered_json& object) {
    items.push_back(ExtractedItem{rule.name, json_text(object)});
  };
  for (const Rule* rule_ptr : matching) {
    const Rule& rule = *rule_ptr;
    std::size_t incomplete = 0;
    std::string first_missing;
    if (!rule.each_index) {
      // One item: each field under a budget of its own.
      ordered_json object = ordered_json::object();
      bool complete = true;
      for (const Field& field : rule.fields) {
        if (stopping()) {
          report(rule, field.name, "not evaluated: the crawl is stopping");
          object[field.name] = field.is_list() || field.all ? ordered_json::array() : ordered_json();
          continue;
        }
        const auto expressions = static_cast<unsigned long>(expressions_in(field));
        XPathBudget budget(context.get(), op_limit * expressions, cpu_budget * static_cast<long>(expressions), stop);
        std::size_t bytes = 0;
        complete = reader.read_field(field, document, budget, bytes, object) && complete;
        if (!budget.failure().empty())
          report(rule, field.name, budget.failure());
        if (reader.take_over_budget())
          report(rule, field.name, over_budget_text);
      }
      if (complete) {
        keep(rule, object);
      } else {
        incomplete = 1;
        first_missing = reader.take_missing();
      }
    } else {
      // One item per element `each` selects, under one budget for the rule.
      unsigned long expressions = 1;  // `each`
      for (const Field& field : rule.fields)
        expressions += static_cast<unsigned long>(expressions_in(field));
      XPathBudget budget(context.get(), op_limit * expressions, cpu_budget * static_cast<long>(expressions), stop);
      std::size_t bytes = 0;
      if (stopping()) {
        report(rule, "each", "not evaluated: the crawl is stopping");
      } else {
        for (xmlNode* element : reader.elements(*rule.each_index, document, budget, "each")) {
          ordered_json object = ordered_json::object();
          const bool complete = reader.read_object(rule.fields, element, budget, bytes, object);
          if (!budget.failure().empty() || reader.over_budget())
            break;
          if (complete)
            keep(rule, object);
          else if (++incomplete == 1)
            first_missing = reader.take_missing();
          else
            reader.take_missing();
        }
        if (!budget.failure().empty())
          report(rule, budget.failed_field(), budget.failure());
        if (reader.take_over_budget())
          report(rule, "each", over_budget_text);
      }
    }
    if (incomplete > 0 && incomplete_items != nullptr)
      incomplete_items->push_back("rule '" + rule.name + "': " + std::to_string(incomplete) +
                                  (incomplete == 1 ? " item" : " items") + " without the required field '" +
                                  first_missing + "' (or another), not kept");
  }
  return items;
}

}  // namespace actorcrawl
