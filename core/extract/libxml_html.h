// libxml2 as extraction rules use it: its HTML parser (the tree parsel and
// lxml query) and its XPath 1.0 engine, made safe to call from several
// threads at once and silent on stderr.
//
// What libxml2 2.9 shares between threads, and how each is handled here:
//   - xmlInitParser() must run once before threads use the library:
//     init_libxml() does, under std::call_once.
//   - Error handlers (xmlGenericError, xmlStructuredError) are per thread
//     in a thread-enabled build (Debian's is), but default to printing on
//     stderr: LibxmlErrorScope sets this thread's to its own for the time
//     of a call and puts the previous ones back.
//   - A compiled XPath (xmlXPathCompExpr) is not read-only while it is
//     evaluated: the first evaluation of a function call stores the looked
//     up function in the expression (xpath.c, XPATH_OP_FUNCTION, op->cache),
//     a data race when two threads evaluate one expression. So an
//     expression is evaluated by one thread at a time (ExtractionRules keeps
//     a pool of compiled copies), and each evaluation gets its own
//     xmlXPathContext.
//   - A parsed document belongs to the call that parsed it.
#pragma once

#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace actorcrawl {

// Initializes libxml2 once per process.
void init_libxml();

// While it lives, this thread's libxml2 errors come here instead of
// stderr; the last one is kept for the caller.
class LibxmlErrorScope {
 public:
  LibxmlErrorScope();
  ~LibxmlErrorScope();
  LibxmlErrorScope(const LibxmlErrorScope&) = delete;
  LibxmlErrorScope& operator=(const LibxmlErrorScope&) = delete;

  // The last message since construction or the last take(), "" if none;
  // with where in the expression an XPath compiler error stopped.
  std::string take(bool with_position = false);

 private:
  static void on_generic(void* scope, const char* format, ...);
  static void on_structured(void* scope, xmlErrorPtr error);

  xmlGenericErrorFunc saved_generic_;
  void* saved_generic_context_;
  xmlStructuredErrorFunc saved_structured_;
  void* saved_structured_context_;
  std::string last_;
  int last_position_ = -1;
};

struct XmlDocDeleter {
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};
using HtmlTree = std::unique_ptr<xmlDoc, XmlDocDeleter>;

// Parses UTF-8 HTML with libxml2's HTML parser in recovery mode: no error
// output, no network, no entity loading, and without HTML_PARSE_HUGE, so
// the parser's own limits hold (an element nested deeper than 256 ends
// the parse there, keeping what came before). A tag's attributes past the
// first 256 are dropped first (html_attribute_cap.h). A <meta charset> in
// the page is not obeyed: the text is UTF-8 already. Never null: an empty
// page gives an empty tree.
HtmlTree parse_html_tree(std::string_view html_utf8);

struct XPathDeleter {
  void operator()(xmlXPathCompExpr* comp) const { xmlXPathFreeCompExpr(comp); }
};
using CompiledXPath = std::unique_ptr<xmlXPathCompExpr, XPathDeleter>;

// An XPath libxml2 will not run: the message says why and where.
class XPathCompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bounds on what compile_xpath takes (a rule's own text is bounded more
// tightly: ExtractionRules' kMaxSelectorBytes; a CSS selector's translation
// may be longer than the selector).
inline constexpr std::size_t kMaxXPathBytes = 64 * 1024;
inline constexpr std::size_t kMaxXPathNesting = 64;

// Compiles an XPath 1.0 expression for evaluation against HTML trees, in
// time linear in its length. Refused (XPathCompileError): an expression
// past kMaxXPathBytes or nesting deeper than kMaxXPathNesting, what
// libxml2's compiler refuses, a NUL character, and what would fail only at
// evaluation in libxml2 (which compiles any function name): an unknown
// function, a variable ($x), a namespace-prefixed function.
CompiledXPath compile_xpath(const std::string& expression);

// XPath's string-value of a node (an element's descendant text, an
// attribute's value, a text node's text).
std::string node_string_value(xmlNode* node);

}  // namespace actorcrawl
