#include "core/extract/libxml_html.h"

#include "core/extract/html_attribute_cap.h"
#include "core/extract/xpath_names.h"

#include <libxml/HTMLtree.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xpathInternals.h>

#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>
#include <vector>

namespace actorcrawl {

void init_libxml() {
  static std::once_flag once;
  std::call_once(once, [] { xmlInitParser(); });
}

LibxmlErrorScope::LibxmlErrorScope()
    : saved_generic_(xmlGenericError),
      saved_generic_context_(xmlGenericErrorContext),
      saved_structured_(xmlStructuredError),
      saved_structured_context_(xmlStructuredErrorContext) {
  init_libxml();
  xmlSetGenericErrorFunc(this, &LibxmlErrorScope::on_generic);
  xmlSetStructuredErrorFunc(this, &LibxmlErrorScope::on_structured);
}

LibxmlErrorScope::~LibxmlErrorScope() {
  xmlSetStructuredErrorFunc(saved_structured_context_, saved_structured_);
  xmlSetGenericErrorFunc(saved_generic_context_, saved_generic_);
}

std::string LibxmlErrorScope::take(bool with_position) {
  std::string out;
  out.swap(last_);
  if (with_position && last_position_ >= 0 && !out.empty())
    out += " at position " + std::to_string(last_position_);
  last_position_ = -1;
  return out;
}

namespace {

std::string without_trailing_newlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

void LibxmlErrorScope::on_generic(void* scope, const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  std::string message = without_trailing_newlines(buffer);
  if (!message.empty()) {
    auto* self = static_cast<LibxmlErrorScope*>(scope);
    self->last_ = std::move(message);
    self->last_position_ = -1;
  }
}

void LibxmlErrorScope::on_structured(void* scope, xmlErrorPtr error) {
  // The HTML parser's complaints about the page (recovered from, and
  // many on a broken page) are not the caller's business.
  if (error == nullptr || error->domain == XML_FROM_HTML || error->domain == XML_FROM_PARSER)
    return;
  auto* self = static_cast<LibxmlErrorScope*>(scope);
  self->last_ = without_trailing_newlines(error->message ? error->message : "unknown error");
  self->last_position_ = error->domain == XML_FROM_XPATH && error->str1 != nullptr ? error->int1 : -1;
}

HtmlTree parse_html_tree(std::string_view html_utf8) {
  init_libxml();
  // No HTML_PARSE_HUGE: the parser's depth and size limits stay on. No
  // XML_PARSE_NOENT or DTD loading: nothing outside the page is read.
  constexpr int kOptions =
      HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | HTML_PARSE_COMPACT;
  // The parser is quadratic in one tag's attributes (html_attribute_cap.h).
  const std::optional<std::string> capped = cap_tag_attributes(html_utf8);
  const std::string_view html = capped ? std::string_view(*capped) : html_utf8;
  if (html.empty() || html.size() > static_cast<std::size_t>(INT_MAX))
    return HtmlTree(htmlNewDocNoDtD(nullptr, nullptr));
  HtmlTree tree(htmlReadMemory(html.data(), static_cast<int>(html.size()), nullptr, "UTF-8", kOptions));
  if (!tree)
    tree.reset(htmlNewDocNoDtD(nullptr, nullptr));
  return tree;
}

namespace {

struct XPathContextDeleter {
  void operator()(xmlXPathContext* context) const { xmlXPathFreeContext(context); }
};

}  // namespace

CompiledXPath compile_xpath(const std::string& expression) {
  init_libxml();
  if (expression.find('\0') != std::string::npos)
    throw XPathCompileError("a NUL character at position " + std::to_string(expression.find('\0')));
  // Bounded before libxml2 sees it: its compiler and evaluator recurse by
  // the expression's nesting (and by a chain of operators, bounded by the
  // length).
  if (expression.size() > kMaxXPathBytes)
    throw XPathCompileError("the expression is " + std::to_string(expression.size()) +
                            " bytes long, over the limit of " + std::to_string(kMaxXPathBytes));
  const XPathNames names = xpath_names(expression);
  if (names.max_nesting > kMaxXPathNesting)
    throw XPathCompileError("the expression nests " + std::to_string(names.max_nesting) +
                            " parentheses or brackets deep, over the limit of " + std::to_string(kMaxXPathNesting));
  LibxmlErrorScope errors;
  // A context gives the compiler its recursion limit (deeply nested
  // parentheses are refused, not a stack overflow) and the function table.
  std::unique_ptr<xmlXPathContext, XPathContextDeleter> context(xmlXPathNewContext(nullptr));
  if (!context)
    throw XPathCompileError("out of memory");
  CompiledXPath comp(xmlXPathCtxtCompile(context.get(), reinterpret_cast<const xmlChar*>(expression.c_str())));
  if (!comp) {
    const std::string why = errors.take(true);
    throw XPathCompileError(why.empty() ? "invalid expression" : why);
  }
  for (const auto& name : names.variables)
    throw XPathCompileError("variables are not supported ($" + name + ")");
  for (const auto& name : names.functions) {
    if (name.find(':') != std::string::npos)
      throw XPathCompileError("unknown function '" + name + "()' (no namespace prefixes are bound)");
    if (xmlXPathFunctionLookup(context.get(), reinterpret_cast<const xmlChar*>(name.c_str())) == nullptr)
      throw XPathCompileError("unknown function '" + name + "()'");
  }
  return comp;
}

std::string node_string_value(xmlNode* node) {
  xmlChar* value = xmlXPathCastNodeToString(node);
  if (value == nullptr)
    return {};
  std::string out(reinterpret_cast<const char*>(value));
  xmlFree(value);
  return out;
}

}  // namespace actorcrawl
