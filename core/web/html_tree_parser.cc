// The html5 parser: gumbo builds the whole HTML5 tree, then a walk reads
// the elements HtmlFieldCollector wants.
#include "core/web/html_document.h"
#include "core/web/ascii.h"
#include "core/web/html_fields.h"

#include <gumbo.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace actorcrawl {
namespace {

using ascii::is_alpha;
using ascii::is_html_space;

// ---------------------------------------------------------------------------
// Nesting limit, applied to the raw bytes before gumbo sees them.
//
// gumbo follows the HTML5 tree builder literally: every block-level start
// tag walks the whole stack of open elements looking for a <p> to close, so
// N unclosed <div>s cost O(N^2): a page of a few hundred KB of them keeps
// gumbo busy for seconds. Browsers cap nesting for the same reason (Blink
// at 512).
//
// So a cheap tag scanner estimates how many elements are open. Once that
// estimate reaches kMaxOpenElements, start tags that would open yet another
// element are blanked out (replaced by a space, so neighbouring text cannot
// join into new markup). Only container elements are ever blanked: never
// <a>, void elements such as <meta>/<base>/<link>/<area>, or raw-text
// elements such as <title>/<script>, so everything parse_html extracts
// survives; only structure below the cap is flattened. Normal pages never
// reach the cap and are parsed without a copy.
//
// The estimate counts, per tag name, start tags minus matching end tags.
// Elements whose end tag may be omitted (<p>, <li>, <td>...) are not counted,
// since the tree builder closes them implicitly and a count cannot follow
// that. The estimate is rough on purpose; erring high only flattens a little
// structure, never loses a link.

constexpr std::size_t kMaxOpenElements = 512;

enum class TagKind {
  kContainer,  // counted, and blanked once the cap is reached
  kUncounted,  // void, end tag optional, or <a> (an <a> closes an open one)
  kRawText,    // content is text up to the matching end tag
  kPlainText,  // everything after it is text
};

TagKind classify(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_AREA: case GUMBO_TAG_BASE: case GUMBO_TAG_BASEFONT:
    case GUMBO_TAG_BGSOUND: case GUMBO_TAG_BR: case GUMBO_TAG_COL:
    case GUMBO_TAG_EMBED: case GUMBO_TAG_FRAME: case GUMBO_TAG_HR:
    case GUMBO_TAG_IMAGE: case GUMBO_TAG_IMG: case GUMBO_TAG_INPUT:
    case GUMBO_TAG_KEYGEN: case GUMBO_TAG_LINK: case GUMBO_TAG_META:
    case GUMBO_TAG_PARAM: case GUMBO_TAG_SOURCE: case GUMBO_TAG_TRACK:
    case GUMBO_TAG_WBR:
    case GUMBO_TAG_P: case GUMBO_TAG_LI: case GUMBO_TAG_DD: case GUMBO_TAG_DT:
    case GUMBO_TAG_OPTION: case GUMBO_TAG_OPTGROUP: case GUMBO_TAG_TR:
    case GUMBO_TAG_TD: case GUMBO_TAG_TH: case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TBODY: case GUMBO_TAG_TFOOT: case GUMBO_TAG_COLGROUP:
    case GUMBO_TAG_CAPTION: case GUMBO_TAG_RB: case GUMBO_TAG_RT:
    case GUMBO_TAG_RTC: case GUMBO_TAG_RP: case GUMBO_TAG_HTML:
    case GUMBO_TAG_HEAD: case GUMBO_TAG_BODY:
    case GUMBO_TAG_A:
      return TagKind::kUncounted;
    case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_XMP:
    case GUMBO_TAG_IFRAME: case GUMBO_TAG_NOEMBED: case GUMBO_TAG_NOFRAMES:
    case GUMBO_TAG_TEXTAREA: case GUMBO_TAG_TITLE:
      return TagKind::kRawText;
    case GUMBO_TAG_PLAINTEXT:
      return TagKind::kPlainText;
    default:
      return TagKind::kContainer;
  }
}

// Start tags that make the tree builder leave <svg>/<math> content; after
// one, "/>" no longer closes an element.
bool leaves_foreign_content(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_B: case GUMBO_TAG_BIG: case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_BODY: case GUMBO_TAG_BR: case GUMBO_TAG_CENTER:
    case GUMBO_TAG_CODE: case GUMBO_TAG_DD: case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL: case GUMBO_TAG_DT: case GUMBO_TAG_EM:
    case GUMBO_TAG_EMBED: case GUMBO_TAG_H1: case GUMBO_TAG_H2:
    case GUMBO_TAG_H3: case GUMBO_TAG_H4: case GUMBO_TAG_H5:
    case GUMBO_TAG_H6: case GUMBO_TAG_HEAD: case GUMBO_TAG_HR:
    case GUMBO_TAG_I: case GUMBO_TAG_IMG: case GUMBO_TAG_LI:
    case GUMBO_TAG_LISTING: case GUMBO_TAG_MENU: case GUMBO_TAG_META:
    case GUMBO_TAG_NOBR: case GUMBO_TAG_OL: case GUMBO_TAG_P:
    case GUMBO_TAG_PRE: case GUMBO_TAG_RUBY: case GUMBO_TAG_S:
    case GUMBO_TAG_SMALL: case GUMBO_TAG_SPAN: case GUMBO_TAG_STRONG:
    case GUMBO_TAG_STRIKE: case GUMBO_TAG_SUB: case GUMBO_TAG_SUP:
    case GUMBO_TAG_TABLE: case GUMBO_TAG_TT: case GUMBO_TAG_U:
    case GUMBO_TAG_UL: case GUMBO_TAG_VAR:
      return true;
    default:
      return false;
  }
}

class NestingLimiter {
 public:
  explicit NestingLimiter(std::string_view body) : body_(body) {}

  // True when start tags had to be blanked; the result is then in `out`.
  bool run(std::string& out) {
    out_ = &out;
    std::size_t pos = 0;
    while (pos < body_.size()) {
      const void* lt =
          std::memchr(body_.data() + pos, '<', body_.size() - pos);
      if (lt == nullptr) break;
      pos = scan_markup(static_cast<const char*>(lt) - body_.data());
    }
    if (!blanking_) return false;
    out.append(body_.data() + copied_, body_.size() - copied_);
    return true;
  }

 private:
  static constexpr std::size_t npos = std::string_view::npos;

  // `lt` indexes a '<'; returns where scanning continues.
  std::size_t scan_markup(std::size_t lt) {
    const std::size_t i = lt + 1;
    if (i >= body_.size()) return body_.size();
    const char c = body_[i];
    if (c == '!') return skip_declaration(i + 1);
    if (c == '?') return skip_past('>', i);
    if (c == '/') {
      if (i + 1 < body_.size() && is_alpha(body_[i + 1])) {
        return end_tag(i + 1);
      }
      return skip_past('>', i);
    }
    if (is_alpha(c)) return start_tag(lt, i);
    return i;  // a lone '<' in text
  }

  // After "<!": a comment, a CDATA section, or a doctype/bogus comment.
  std::size_t skip_declaration(std::size_t i) {
    const std::string_view rest = body_.substr(i);
    // Searching from the dashes also ends "<!-->" and "<!--->", which the
    // tokenizer treats as complete (empty) comments.
    if (rest.substr(0, 2) == "--") return skip_past("-->", i);
    if (rest.substr(0, 7) == "[CDATA[") return skip_past("]]>", i);
    return skip_past('>', i);
  }

  std::size_t skip_past(char c, std::size_t from) const {
    const std::size_t at = body_.find(c, from);
    return at == npos ? body_.size() : at + 1;
  }

  std::size_t skip_past(std::string_view s, std::size_t from) const {
    const std::size_t at = body_.find(s, from);
    return at == npos ? body_.size() : at + s.size();
  }

  std::size_t name_end(std::size_t from) const {
    std::size_t i = from;
    while (i < body_.size() && !is_html_space(body_[i]) && body_[i] != '/' &&
           body_[i] != '>') {
      ++i;
    }
    return i;
  }

  // Index of the '>' closing a tag whose attributes start at `from`, skipping
  // quoted attribute values (they may contain '>'); npos when the tag runs
  // to the end of input, which the tokenizer then drops.
  std::size_t tag_close(std::size_t from) const {
    for (std::size_t i = from; i < body_.size(); ++i) {
      if (body_[i] == '>') return i;
      if (body_[i] != '=') continue;
      std::size_t v = i + 1;
      while (v < body_.size() && is_html_space(body_[v])) ++v;
      if (v < body_.size() && (body_[v] == '"' || body_[v] == '\'')) {
        v = body_.find(body_[v], v + 1);
        if (v == npos) return npos;
      }
      i = v - 1;  // the loop's ++i resumes right after the value's start
    }
    return npos;
  }

  // Raw text ends at "</name" followed by whitespace, '/' or '>'. Returns the
  // index of that '<' so the end tag is scanned like any other.
  std::size_t raw_text_end(std::size_t from, std::string_view name) const {
    std::size_t i = from;
    while ((i = body_.find("</", i)) != npos) {
      const std::size_t after = i + 2 + name.size();
      if (ascii::iequals(body_.substr(i + 2, name.size()), name) &&
          (after >= body_.size() || is_html_space(body_[after]) ||
           body_[after] == '/' || body_[after] == '>')) {
        return i;
      }
      i += 2;
    }
    return body_.size();
  }

  std::size_t start_tag(std::size_t lt, std::size_t name_begin) {
    const std::size_t name_stop = name_end(name_begin);
    const std::size_t close = tag_close(name_stop);
    if (close == npos) return body_.size();
    const std::string_view name =
        body_.substr(name_begin, name_stop - name_begin);
    const GumboTag tag = gumbo_tagn_enum(name.data(), name.size());
    const bool self_closing = body_[close - 1] == '/';
    const std::size_t next = close + 1;

    if (in_foreign_content() && leaves_foreign_content(tag)) {
      leave_foreign_content();
    }
    switch (classify(tag)) {
      case TagKind::kRawText: return raw_text_end(next, name);
      case TagKind::kPlainText: return body_.size();
      case TagKind::kUncounted: return next;
      case TagKind::kContainer: break;
    }
    // "/>" really closes elements inside <svg>/<math> (and <svg/> itself);
    // on HTML elements the tokenizer ignores it. Inside an integration point
    // (<foreignObject>, <desc>, MathML's text elements) content is HTML
    // again, so there "/>" closes nothing and every element counts.
    const bool foreign_root = tag == GUMBO_TAG_SVG || tag == GUMBO_TAG_MATH;
    if (is_integration_point(tag) && in_foreign_content() && !self_closing)
      ++integration_points_;
    if (self_closing && (foreign_root || (in_foreign_content() && integration_points_ == 0))) return next;

    if (open_ >= kMaxOpenElements) {
      blank(lt, next);
    } else {
      ++count(tag, name);
      ++open_;
    }
    return next;
  }

  std::size_t end_tag(std::size_t name_begin) {
    const std::size_t name_stop = name_end(name_begin);
    const std::size_t close = tag_close(name_stop);
    if (close == npos) return body_.size();
    const std::string_view name =
        body_.substr(name_begin, name_stop - name_begin);
    const GumboTag tag = gumbo_tagn_enum(name.data(), name.size());
    if (is_integration_point(tag) && integration_points_ > 0)
      --integration_points_;
    if (classify(tag) == TagKind::kContainer) {
      std::uint32_t& n = count(tag, name);
      if (n > 0) {
        --n;
        --open_;
      }
    }
    return close + 1;
  }

  std::uint32_t& count(GumboTag tag, std::string_view name) {
    if (tag != GUMBO_TAG_UNKNOWN) return known_[tag];
    key_.assign(name);  // reused: custom elements can be most of a page
    std::transform(key_.begin(), key_.end(), key_.begin(), ascii::to_lower);
    return unknown_[key_];
  }

  bool in_foreign_content() const {
    return known_[GUMBO_TAG_SVG] + known_[GUMBO_TAG_MATH] > 0;
  }

  void leave_foreign_content() {
    open_ -= known_[GUMBO_TAG_SVG] + known_[GUMBO_TAG_MATH];
    known_[GUMBO_TAG_SVG] = 0;
    known_[GUMBO_TAG_MATH] = 0;
    integration_points_ = 0;
  }

  // SVG and MathML elements whose content the tree builder reads as HTML.
  static bool is_integration_point(GumboTag tag) {
    switch (tag) {
      case GUMBO_TAG_FOREIGNOBJECT: case GUMBO_TAG_DESC:
      case GUMBO_TAG_MI: case GUMBO_TAG_MO: case GUMBO_TAG_MN:
      case GUMBO_TAG_MS: case GUMBO_TAG_MTEXT: case GUMBO_TAG_ANNOTATION_XML:
        return true;
      default:
        return false;
    }
  }

  void blank(std::size_t begin, std::size_t end) {
    if (!blanking_) {
      blanking_ = true;
      out_->reserve(body_.size());
    }
    out_->append(body_.data() + copied_, begin - copied_);
    out_->push_back(' ');
    copied_ = end;
  }

  std::string_view body_;
  std::string* out_ = nullptr;
  bool blanking_ = false;
  std::size_t copied_ = 0;  // body_ bytes before this are already in out_
  std::size_t open_ = 0;
  std::size_t integration_points_ = 0;  // open ones inside <svg>/<math>
  std::array<std::uint32_t, GUMBO_TAG_LAST + 1> known_{};
  std::unordered_map<std::string, std::uint32_t> unknown_;
  std::string key_;
};

// ---------------------------------------------------------------------------
// The parse tree.

// gumbo allocates every node, attribute, string buffer and vector with a
// separate malloc, and gumbo_destroy_output frees them one by one, walking
// the tree recursively (300,000 nested <span>s would overflow an 8 MB
// stack). Together that is a fifth of the time spent on a typical page. So
// gumbo gets a bump allocator instead: allocation is a pointer increment,
// "free" does nothing, and the whole tree goes at once when the parse is
// done, without gumbo_destroy_output and so without its recursion.
//
// Vectors and string buffers grow by allocating anew and copying, so the
// arena holds the abandoned copies until the end of the parse: about twice
// what the tree needs, bounded by the page size times a small factor.
// Each thread keeps one arena and reuses its first block across pages, so a
// parse lane does no malloc at all on pages of ordinary size.
class ParseArena {
 public:
  ParseArena() = default;
  ParseArena(const ParseArena&) = delete;
  ParseArena& operator=(const ParseArena&) = delete;
  ~ParseArena() {
    for (auto& block : blocks_) std::free(block.data);
  }

  void* allocate(std::size_t size) {
    size = (size + kAlign - 1) & ~(kAlign - 1);
    if (blocks_.empty() || blocks_.back().size - used_ < size) {
      if (!add_block(size)) return nullptr;
    }
    void* p = blocks_.back().data + used_;
    used_ += size;
    return p;
  }

  // Forgets every allocation. The first block stays for the next page;
  // blocks added for a large page are returned to the system.
  void reset() {
    while (blocks_.size() > 1) {
      std::free(blocks_.back().data);
      blocks_.pop_back();
    }
    used_ = 0;
  }

  static void* allocate_for_gumbo(void* arena, std::size_t size) {
    return static_cast<ParseArena*>(arena)->allocate(size);
  }
  static void free_for_gumbo(void*, void*) {}

 private:
  static constexpr std::size_t kAlign = alignof(std::max_align_t);
  static constexpr std::size_t kBlockBytes = 256 * 1024;

  struct Block {
    char* data;
    std::size_t size;
  };

  bool add_block(std::size_t at_least) {
    const std::size_t size = std::max(kBlockBytes, at_least);
    char* data = static_cast<char*>(std::malloc(size));
    if (data == nullptr) return false;
    blocks_.push_back({data, size});
    used_ = 0;
    return true;
  }

  std::vector<Block> blocks_;
  std::size_t used_ = 0;  // bytes taken from blocks_.back()
};

bool has_children(const GumboNode* node) {
  return node->type == GUMBO_NODE_ELEMENT || node->type == GUMBO_NODE_TEMPLATE;
}

const GumboNode* child(const GumboVector& children, unsigned int i) {
  return static_cast<const GumboNode*>(children.data[i]);
}

class GumboTree {
 public:
  explicit GumboTree(std::string_view html) : arena_(thread_arena()) {
    GumboOptions options = kGumboDefaultOptions;
    options.allocator = &ParseArena::allocate_for_gumbo;
    options.deallocator = &ParseArena::free_for_gumbo;
    options.userdata = &arena_;
    // Parse errors are never read; recording them costs time and memory.
    options.max_errors = 0;
    output_ = gumbo_parse_with_options(
        &options, html.empty() ? "" : html.data(), html.size());
  }
  // The tree lives in the arena; nothing of it is freed node by node.
  ~GumboTree() { arena_.reset(); }
  GumboTree(const GumboTree&) = delete;
  GumboTree& operator=(const GumboTree&) = delete;

  const GumboNode* document() const {
    return output_ == nullptr ? nullptr : output_->document;
  }

 private:
  static ParseArena& thread_arena() {
    thread_local ParseArena arena;
    return arena;
  }

  ParseArena& arena_;
  GumboOutput* output_ = nullptr;
};

// ---------------------------------------------------------------------------
// Extraction: a walk of the tree, each element handed to HtmlFieldCollector.

const char* attribute(const GumboElement& element, const char* name) {
  const GumboAttribute* a = gumbo_get_attribute(&element.attributes, name);
  return a == nullptr ? nullptr : a->value;
}

class Extractor {
 public:
  explicit Extractor(HtmlFieldCollector& fields) : fields_(fields) {}

  // Visits elements in document order with an explicit stack (hostile pages
  // nest deeper than the C stack allows).
  void walk(const GumboNode* document) {
    std::vector<const GumboNode*> stack;
    stack.reserve(64);
    auto push_children = [&stack](const GumboVector& children) {
      // Last child pushed first, so the first child is popped next.
      for (unsigned int i = children.length; i-- > 0;) {
        if (has_children(child(children, i))) stack.push_back(child(children, i));
      }
    };
    push_children(document->v.document.children);
    while (!stack.empty()) {
      const GumboNode* node = stack.back();
      stack.pop_back();
      visit(node->v.element);
      push_children(node->v.element.children);
    }
  }

 private:
  void visit(const GumboElement& e) {
    // SVG has its own <a> (a real link) but also its own <title> (a
    // tooltip), so only the head-ish elements are restricted to HTML.
    const bool html = e.tag_namespace == GUMBO_NAMESPACE_HTML;
    switch (e.tag) {
      case GUMBO_TAG_A:
      case GUMBO_TAG_AREA: fields_.anchor(attribute(e, "href"), attribute(e, "rel")); break;
      case GUMBO_TAG_TITLE: if (html && fields_.wants_title()) fields_.title(text_of(e)); break;
      case GUMBO_TAG_META: if (html) fields_.meta(attribute(e, "name"), attribute(e, "content")); break;
      case GUMBO_TAG_BASE: if (html) fields_.base(attribute(e, "href")); break;
      case GUMBO_TAG_LINK: if (html) fields_.link(attribute(e, "rel"), attribute(e, "href")); break;
      default: break;
    }
  }

  static std::string text_of(const GumboElement& e) {
    std::string text;
    for (unsigned int i = 0; i < e.children.length; ++i) {
      const GumboNode* node = child(e.children, i);
      if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE) text += node->v.text.text;
    }
    return text;
  }

  HtmlFieldCollector& fields_;
};

}  // namespace

HtmlDocument parse_html_html5(std::string_view body) {
  std::string flattened;
  if (NestingLimiter(body).run(flattened)) body = flattened;
  GumboTree tree(body);
  HtmlDocument doc;
  if (tree.document() == nullptr) return doc;
  HtmlFieldCollector fields(doc);
  Extractor(fields).walk(tree.document());
  return doc;
}

}  // namespace actorcrawl
