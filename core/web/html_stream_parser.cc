// The fast parser: the HTML Standard's tokenizer, streaming, with just
// enough of its tree builder to read what the crawler keeps.
//
// A crawler reads about 30 links, a title and a few <meta>/<base>/<link>
// elements from a page. Building the whole HTML5 tree for that (gumbo) costs
// an allocation per node, attribute and text run, and most of a page's CPU.
// This parser runs the tokenizer's state machine over the bytes instead,
// looking only at tags, and decodes attribute values only for the elements
// HtmlFieldCollector reads. What it takes from the tree builder is what
// changes which tags exist or how the next bytes tokenize:
//  - the elements whose content is not markup: <title> and <textarea>
//    (RCDATA), <style>, <xmp>, <iframe>, <noembed>, <noframes> (RAWTEXT),
//    <script> (with its escaped states), <plaintext>;
//  - foreign content (<svg>, <math>): there those elements are ordinary,
//    <title> is SVG's tooltip and CDATA sections exist; tags that break out
//    of it, and the integration points where HTML resumes;
//  - <select>, where start tags other than a handful are dropped, <a>
//    included.
// The differential test (tests/unit/web/html_parser_differential_test.cc)
// holds it to gumbo's result on real and hostile pages; where it differs on
// purpose is listed there with the reason.
#include "core/web/html_document.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/web/ascii.h"
#include "core/web/html_char_refs.h"
#include "core/web/html_fields.h"

namespace actorcrawl {
namespace {

using ascii::is_alpha;

// The tokenizer's whitespace: tab, LF, FF, CR, space.
inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'; }

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD, for NUL

// The elements whose attributes are read, and the few that change parsing.
enum class Tag {
  other,
  a, area, base, link, meta, title,
  textarea, style, xmp, iframe, noembed, noframes, script, plaintext,
  svg, math, select, option, optgroup, hr, input, keygen, template_, html,
  font, annotation_xml, foreign_object, desc, mi, mo, mn, ms, mtext, mglyph, malignmark,
  br, p,
  table,       // ends foreign content too
  table_part,  // caption, tbody, tfoot, thead, tr, td, th
  breakout,  // other start tags that end foreign content
};

// The bytes of a name of up to 8 bytes as one integer, the first in the
// lowest byte; names of one length are equal exactly when their words are.
constexpr std::uint64_t word(std::string_view n) {
  std::uint64_t w = 0;
  for (std::size_t i = 0; i < n.size(); ++i)
    w |= std::uint64_t{static_cast<unsigned char>(n[i])} << (8 * i);
  return w;
}

Tag tag_of(std::string_view n) {
  // A name of up to 8 bytes is compared as one integer: a page names a tag
  // at every '<', and comparing the texts called memcmp for each candidate.
  const std::uint64_t w = n.size() <= 8 ? word(n) : 0;
  switch (n.size()) {
    case 1:
      if (w == word("a")) return Tag::a;
      if (w == word("p")) return Tag::p;
      if (w == word("b") || w == word("i") || w == word("s") || w == word("u")) return Tag::breakout;
      break;
    case 2:
      if (w == word("hr")) return Tag::hr;
      if (w == word("br")) return Tag::br;
      if (w == word("mi")) return Tag::mi;
      if (w == word("tr") || w == word("td") || w == word("th")) return Tag::table_part;
      if (w == word("mo")) return Tag::mo;
      if (w == word("mn")) return Tag::mn;
      if (w == word("ms")) return Tag::ms;
      if (w == word("dd") || w == word("dl") || w == word("dt") || w == word("em") || w == word("li") ||
          w == word("ol") || w == word("tt") || w == word("ul") ||
          (n[0] == 'h' && n[1] >= '1' && n[1] <= '6'))
        return Tag::breakout;
      break;
    case 3:
      if (w == word("svg")) return Tag::svg;
      if (w == word("xmp")) return Tag::xmp;
      if (w == word("big") || w == word("div") || w == word("img") || w == word("pre") || w == word("sub") ||
          w == word("sup") || w == word("var"))
        return Tag::breakout;
      break;
    case 4:
      if (w == word("area")) return Tag::area;
      if (w == word("base")) return Tag::base;
      if (w == word("link")) return Tag::link;
      if (w == word("meta")) return Tag::meta;
      if (w == word("math")) return Tag::math;
      if (w == word("font")) return Tag::font;
      if (w == word("desc")) return Tag::desc;
      if (w == word("html")) return Tag::html;
      if (w == word("body") || w == word("code") || w == word("head") || w == word("menu") || w == word("nobr") ||
          w == word("ruby") || w == word("span"))
        return Tag::breakout;
      break;
    case 5:
      if (w == word("title")) return Tag::title;
      if (w == word("style")) return Tag::style;
      if (w == word("input")) return Tag::input;
      if (w == word("mtext")) return Tag::mtext;
      if (w == word("table")) return Tag::table;
      if (w == word("tbody") || w == word("tfoot") || w == word("thead")) return Tag::table_part;
      if (w == word("embed") || w == word("small")) return Tag::breakout;
      break;
    case 6:
      if (w == word("iframe")) return Tag::iframe;
      if (w == word("script")) return Tag::script;
      if (w == word("select")) return Tag::select;
      if (w == word("option")) return Tag::option;
      if (w == word("keygen")) return Tag::keygen;
      if (w == word("mglyph")) return Tag::mglyph;
      if (w == word("center") || w == word("strike") || w == word("strong")) return Tag::breakout;
      break;
    case 7:
      if (w == word("noembed")) return Tag::noembed;
      if (w == word("caption")) return Tag::table_part;
      if (w == word("listing")) return Tag::breakout;
      break;
    case 8:
      if (w == word("textarea")) return Tag::textarea;
      if (w == word("noframes")) return Tag::noframes;
      if (w == word("optgroup")) return Tag::optgroup;
      if (w == word("template")) return Tag::template_;
      break;
    case 9:
      if (n == "plaintext") return Tag::plaintext;
      break;
    case 10:
      if (n == "blockquote") return Tag::breakout;
      if (n == "malignmark") return Tag::malignmark;
      break;
    case 13:
      if (n == "foreignobject") return Tag::foreign_object;
      break;
    case 14:
      if (n == "annotation-xml") return Tag::annotation_xml;
      break;
    default:
      break;
  }
  return Tag::other;
}

// Elements whose attributes HtmlFieldCollector (or the tree builder, for
// foreign content) reads.
bool reads_attributes(Tag t) {
  switch (t) {
    case Tag::a: case Tag::area: case Tag::base: case Tag::link: case Tag::meta:
    case Tag::font: case Tag::annotation_xml:
      return true;
    default:
      return false;
  }
}

// The attributes those elements are read for; the rest are skipped, so a
// tag with a hundred thousand attributes costs no more than a long one (the
// first-one-wins check compares a new name only with these few).
bool is_read_attribute(std::string_view n) {
  switch (n.size()) {
    case 3: return n == "rel";
    case 4: return n == "href" || n == "name" || n == "face" || n == "size";
    case 5: return n == "color";
    case 7: return n == "content";
    case 8: return n == "encoding";
    case 10: return n == "xlink:href";
    default: return false;
  }
}

struct Attribute {
  std::string name;
  std::string value;
  bool has_value = false;  // "<a href>" has the attribute with an empty value
};

// One tag as the tokenizer emits it.
struct TagToken {
  bool end = false;
  bool self_closing = false;
  std::string name;  // lowercased
  Tag tag = Tag::other;
  std::vector<Attribute> attributes;  // only when reads_attributes(tag)
  std::size_t attribute_count = 0;

  const char* attribute(std::string_view wanted) const {
    for (std::size_t i = 0; i < attribute_count; ++i)
      if (attributes[i].name == wanted) return attributes[i].value.c_str();
    return nullptr;
  }
};

enum class Namespace : std::uint8_t { html, svg, math };

// Element names as small numbers: each distinct name a page uses gets one
// when first met, so the stacks below hold four bytes an element (a deep
// stack stays in the cache, where its cost stays linear in practice too)
// and compare names as integers.
using NameId = std::uint32_t;

class ElementNames {
 public:
  NameId id_of(const std::string& name) {
    return ids_.try_emplace(name, static_cast<NameId>(ids_.size())).first->second;
  }

 private:
  std::unordered_map<std::string, NameId> ids_;
};

// Counts the open elements of each name, so "is one of this name open?" is
// answered without a walk of the stack: a page of stray end tags, or of
// start tags that would close a <p> that is not open, then costs O(1) a tag
// instead of a walk of every open element (quadratic in the page). A walk
// happens only when the name is open, and then it closes what it walks.
class OpenNameCounts {
 public:
  bool contains(NameId name) const { return counts_.find(name) != counts_.end(); }
  void add(NameId name) { ++counts_[name]; }
  void remove(NameId name) {
    const auto it = counts_.find(name);
    if (it != counts_.end() && --it->second == 0) counts_.erase(it);
  }
  void clear() { counts_.clear(); }

 private:
  std::unordered_map<NameId, std::uint32_t> counts_;
};

// HTML elements open inside one integration point, innermost last. Most
// foreign elements never hold one, so the lists are made on first use and
// a deep <svg> costs a pointer an element.
class HtmlOpenElements {
 public:
  bool empty() const { return open_ == nullptr || open_->elements.empty(); }
  bool contains(NameId name) const { return open_ != nullptr && open_->counts.contains(name); }
  // `special`: of the HTML Standard's special category (<div>, <p>, <li>...).
  void push(NameId name, bool special) {
    if (open_ == nullptr) open_ = std::make_unique<Open>();
    open_->elements.push_back(Element{name, special});
    open_->counts.add(name);
  }
  // Closes the innermost `name` and everything inside it.
  void close_through(NameId name) {
    if (!contains(name)) return;
    auto& elements = open_->elements;
    while (true) {
      const bool last = elements.back().name == name;
      open_->counts.remove(elements.back().name);
      elements.pop_back();
      if (last) return;
    }
  }
  // A new <a> ends the open one as the adoption agency does: with a special
  // element opened after it (the "furthest block"), the <a> alone goes and
  // what it held stays open; with none, the <a> and everything opened after
  // it close. The walk ends at that <a>, and no element is walked past
  // twice by this: the next walk stops at the <a> pushed after them.
  void close_formatting(NameId name) {
    if (!contains(name)) return;
    auto& elements = open_->elements;
    bool special_after = false;
    for (std::size_t i = elements.size(); i-- > 0;) {
      if (elements[i].name != name) {
        special_after |= elements[i].special;
        continue;
      }
      if (!special_after) {
        close_through(name);
      } else {
        elements.erase(elements.begin() + static_cast<std::ptrdiff_t>(i));
        open_->counts.remove(name);
      }
      return;
    }
  }

 private:
  struct Element {
    NameId name;
    bool special;
  };
  struct Open {
    std::vector<Element> elements;
    OpenNameCounts counts;
  };
  std::unique_ptr<Open> open_;
};

// The HTML Standard's special category, for HTML elements.
constexpr std::string_view kSpecialElements[] = {
    "address", "applet", "area", "article", "aside", "base", "basefont", "bgsound", "blockquote", "body", "br",
    "button", "caption", "center", "col", "colgroup", "dd", "details", "dir", "div", "dl", "dt", "embed",
    "fieldset", "figcaption", "figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6",
    "head", "header", "hgroup", "hr", "html", "iframe", "img", "input", "keygen", "li", "link", "listing", "main",
    "marquee", "menu", "meta", "nav", "noembed", "noframes", "noscript", "object", "ol", "p", "param",
    "plaintext", "pre", "script", "search", "section", "select", "source", "style", "summary", "table", "tbody",
    "td", "template", "textarea", "tfoot", "th", "thead", "title", "tr", "track", "ul", "wbr", "xmp"};

// An open element of foreign content (or the <svg>/<math> that began it):
// 16 bytes.
struct ForeignElement {
  NameId name;
  Namespace ns;
  bool html_integration_point;  // svg foreignObject/desc/title, math annotation-xml (html)
  bool text_integration_point;  // math mi/mo/mn/ms/mtext
  // An <svg>/<math> started in a table but in none of its cells: the
  // insertion mode stays "in table", so at an integration point a table's
  // structure (<tr>, <td>, <table>...) ends the foreign content.
  bool in_table_structure = false;
  // HTML elements open inside this integration point, innermost last. While
  // one is open the current node is HTML, so an end tag goes by HTML rules:
  // it can close those, never a foreign element (the scope of every HTML
  // end tag stops at an integration point: "<math><mi><a></mi>" leaves the
  // <mi> open).
  HtmlOpenElements html_open;
};

// Elements that have no content and so are never open.
constexpr std::string_view kVoidElements[] = {"area", "base", "basefont", "bgsound", "br", "col", "embed",
                                              "frame", "hr", "image", "img", "input", "keygen", "link",
                                              "meta", "param", "source", "track", "wbr"};

// The parts of a table (the names tag_of() calls Tag::table_part).
enum class TablePart : std::uint8_t { none, caption, tbody, thead, tfoot, tr, td, th };

// `n`, a name tag_of() said is a table part, as its TablePart: told apart
// by its length and one byte, as a table's every tag asks.
TablePart table_part_of(std::string_view n) {
  switch (n.size()) {
    case 2:
      return n[1] == 'r' ? TablePart::tr : n[1] == 'd' ? TablePart::td : TablePart::th;
    case 5:
      return n[1] == 'b' ? TablePart::tbody : n[1] == 'h' ? TablePart::thead : TablePart::tfoot;
    default:
      return TablePart::caption;
  }
}

// What is open of one <table>: enough to tell whether a table part's end
// tag closes anything (and so ends a <select> in the table), and whether
// content is in a cell or in the table's structure.
struct OpenTable {
  explicit OpenTable(std::uint64_t n) : number(n) {}

  std::uint64_t number = 0;  // tables are numbered as they open (HtmlFieldCollector::TreePlace)
  TablePart section = TablePart::none;  // tbody, thead or tfoot (tbody implied by a row)
  bool row = false;
  TablePart cell = TablePart::none;  // td or th
  bool caption = false;

  // Where content is as in a page's body, and a table may start.
  bool holds_content() const { return cell != TablePart::none || caption; }

  void start(TablePart part) {
    if (part == TablePart::td || part == TablePart::th) {
      if (section == TablePart::none) section = TablePart::tbody;
      row = true;
      cell = part;
      caption = false;
    } else if (part == TablePart::tr) {
      if (section == TablePart::none) section = TablePart::tbody;
      row = true;
      cell = TablePart::none;
      caption = false;
    } else if (part == TablePart::caption) {
      *this = OpenTable{number};
      caption = true;
    } else {  // tbody, thead, tfoot
      *this = OpenTable{number};
      section = part;
    }
  }

  // Whether the end tag of `part` closes something open (an element of
  // that very name); it does if so.
  bool end(TablePart part) {
    if (part == TablePart::td || part == TablePart::th) {
      if (cell != part) return false;
      cell = TablePart::none;
    } else if (part == TablePart::tr) {
      if (!row) return false;
      row = false;
      cell = TablePart::none;
    } else if (part == TablePart::caption) {
      if (!caption) return false;
      caption = false;
    } else {
      if (section != part) return false;
      *this = OpenTable{number};
    }
    return true;
  }
};

// Start tags that close an open <p> ("close a p element" in the HTML
// Standard's "in body" rules).
constexpr std::string_view kClosesP[] = {
  "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl",
  "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
  "hgroup", "hr", "li", "dd", "dt", "listing", "main", "menu", "nav", "ol", "p", "plaintext", "pre",
  "search", "section", "summary", "table", "ul", "xmp"};

// What "in body" makes of an HTML element's name at an integration point
// (note_html_element), in one lookup: walking the three lists above
// compared each tag's name with some 150 texts, most of the parse of a page
// of tags at integration points (adversarial_html.h's mi+tables).
enum InBody : std::uint8_t {
  kSpecial = 1,
  kClosingP = 2,
  kNotOpened = 4,  // void, or a tag "in body" ignores (html, head, body, frameset, col, colgroup, frame)
};

std::uint8_t in_body_flags(std::string_view n) {
  static const std::unordered_map<std::string_view, std::uint8_t> kFlags = [] {
    std::unordered_map<std::string_view, std::uint8_t> flags;
    for (std::string_view v : kSpecialElements)
      flags[v] |= kSpecial;
    for (std::string_view v : kClosesP)
      flags[v] |= kClosingP;
    for (std::string_view v : kVoidElements)
      flags[v] |= kNotOpened;
    for (std::string_view v : {"html", "head", "body", "frameset", "col", "colgroup", "frame"})
      flags[v] |= kNotOpened;
    return flags;
  }();
  const auto it = kFlags.find(n);
  return it == kFlags.end() ? 0 : it->second;
}

class StreamParser {
 public:
  StreamParser(std::string_view in, HtmlFieldCollector& fields) : in_(in), fields_(fields) {}

  void run() {
    // A byte order mark is not part of the document.
    if (in_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    while (pos_ < in_.size()) {
      const void* lt = std::memchr(in_.data() + pos_, '<', in_.size() - pos_);
      if (lt == nullptr) return;
      pos_ = static_cast<std::size_t>(static_cast<const char*>(lt) - in_.data()) + 1;
      if (!markup()) return;
    }
  }

 private:
  // After a '<' in the data state. False once the rest of the input is
  // text (<plaintext>) or used up.
  bool markup() {
    if (pos_ >= in_.size()) return false;
    const char c = in_[pos_];
    if (c == '!') {
      ++pos_;
      declaration();
      return true;
    }
    if (c == '/') {
      ++pos_;
      if (pos_ >= in_.size()) return false;
      if (is_alpha(in_[pos_])) {
        if (!read_tag(true)) return false;
        end_tag();
        return true;
      }
      if (in_[pos_] == '>') {  // "</>": nothing
        ++pos_;
        return true;
      }
      skip_bogus_comment();
      return true;
    }
    if (c == '?') {
      skip_bogus_comment();
      return true;
    }
    if (is_alpha(c)) {
      if (!read_tag(false)) return false;
      return start_tag();
    }
    return true;  // a '<' that is text
  }

  // After "<!".
  void declaration() {
    const std::string_view rest = in_.substr(pos_);
    if (rest.substr(0, 2) == "--") {
      comment();
    } else if (rest.size() >= 7 && ascii::iequals(rest.substr(0, 7), "doctype")) {
      skip_bogus_comment();  // a DOCTYPE ends at the first '>', quoted or not
    } else if (rest.substr(0, 7) == "[CDATA[" && !foreign_.empty() && foreign_.back().html_open.empty()) {
      // A CDATA section where the current node is foreign (an integration
      // point itself is); in HTML it is a bogus comment.
      const std::size_t end = in_.find("]]>", pos_ + 7);
      pos_ = end == std::string_view::npos ? in_.size() : end + 3;
    } else {
      skip_bogus_comment();
    }
  }

  // After "<!" at "--": ends at "-->" or "--!>"; "<!-->" and "<!--->" are
  // whole (empty) comments.
  void comment() {
    std::size_t i = pos_ + 2;
    if (i < in_.size() && in_[i] == '>') {
      pos_ = i + 1;
      return;
    }
    if (i + 1 < in_.size() && in_[i] == '-' && in_[i + 1] == '>') {
      pos_ = i + 2;
      return;
    }
    while (true) {
      const std::size_t dashes = in_.find("--", i);
      if (dashes == std::string_view::npos) {
        pos_ = in_.size();
        return;
      }
      std::size_t j = dashes + 2;
      while (j < in_.size() && in_[j] == '-') ++j;  // "--->" ends too
      if (j < in_.size() && in_[j] == '>') {
        pos_ = j + 1;
        return;
      }
      if (j + 1 < in_.size() && in_[j] == '!' && in_[j + 1] == '>') {
        pos_ = j + 2;
        return;
      }
      i = j;
    }
  }

  void skip_bogus_comment() {
    const void* gt = std::memchr(in_.data() + pos_, '>', in_.size() - pos_);
    pos_ = gt == nullptr ? in_.size() : static_cast<std::size_t>(static_cast<const char*>(gt) - in_.data()) + 1;
  }

  // The tag name and attributes, pos_ at the name's first letter; leaves
  // pos_ after the '>'. False when the input ends inside the tag (the
  // tokenizer then emits nothing).
  bool read_tag(bool end) {
    tag_.end = end;
    tag_.self_closing = false;
    tag_.name.clear();
    tag_.attribute_count = 0;
    // The name runs to whitespace, '/' or '>'.
    const std::size_t name_begin = pos_;
    while (pos_ < in_.size() && !is_space(in_[pos_]) && in_[pos_] != '/' && in_[pos_] != '>') ++pos_;
    if (pos_ >= in_.size()) return false;
    append_lowered(in_.substr(name_begin, pos_ - name_begin), tag_.name);
    tag_.tag = tag_of(tag_.name);
    const bool keep = !end && reads_attributes(tag_.tag);
    // The attributes.
    while (true) {
      while (pos_ < in_.size() && is_space(in_[pos_])) ++pos_;
      if (pos_ >= in_.size()) return false;
      char c = in_[pos_];
      if (c == '>') {
        ++pos_;
        return true;
      }
      if (c == '/') {
        ++pos_;
        if (pos_ >= in_.size()) return false;
        if (in_[pos_] == '>') {
          tag_.self_closing = true;
          ++pos_;
          return true;
        }
        continue;  // a stray '/': the next attribute begins
      }
      // The name: an '=' as its first character belongs to it.
      const std::size_t attr_begin = pos_;
      ++pos_;
      while (pos_ < in_.size() && !is_space(in_[pos_]) && in_[pos_] != '/' && in_[pos_] != '>' && in_[pos_] != '=')
        ++pos_;
      if (pos_ >= in_.size()) return false;
      Attribute* attr = keep ? new_attribute(in_.substr(attr_begin, pos_ - attr_begin)) : nullptr;
      while (pos_ < in_.size() && is_space(in_[pos_])) ++pos_;
      if (pos_ >= in_.size()) return false;
      if (in_[pos_] != '=') continue;  // no value: '/', '>' or the next name
      ++pos_;
      while (pos_ < in_.size() && is_space(in_[pos_])) ++pos_;
      if (pos_ >= in_.size()) return false;
      c = in_[pos_];
      if (c == '>') {  // "href=>": an empty value, and the tag ends
        ++pos_;
        return true;
      }
      std::size_t value_end;
      std::size_t next;
      if (c == '"' || c == '\'') {
        const void* q = std::memchr(in_.data() + pos_ + 1, c, in_.size() - pos_ - 1);
        if (q == nullptr) return false;
        value_end = static_cast<std::size_t>(static_cast<const char*>(q) - in_.data());
        ++pos_;
        next = value_end + 1;
      } else {
        value_end = pos_;
        while (value_end < in_.size() && !is_space(in_[value_end]) && in_[value_end] != '>') ++value_end;
        if (value_end >= in_.size()) return false;
        next = value_end;
      }
      if (attr != nullptr) {
        attr->has_value = true;
        decode_value(in_.substr(pos_, value_end - pos_), attr->value);
      }
      pos_ = next;
    }
  }

  // A new attribute slot, or null for a name that is not read or that the
  // tag already has (the first one wins).
  Attribute* new_attribute(std::string_view raw_name) {
    lowered_.clear();
    append_lowered(raw_name, lowered_);
    if (!is_read_attribute(lowered_)) return nullptr;
    for (std::size_t i = 0; i < tag_.attribute_count; ++i)
      if (tag_.attributes[i].name == lowered_) return nullptr;
    if (tag_.attribute_count == tag_.attributes.size()) tag_.attributes.emplace_back();
    Attribute& a = tag_.attributes[tag_.attribute_count++];
    a.name.swap(lowered_);
    a.value.clear();
    a.has_value = false;
    return &a;
  }

  // ASCII letters lowercased, NUL as U+FFFD.
  static void append_lowered(std::string_view raw, std::string& out) {
    for (char c : raw) {
      if (c == '\0') {
        out.append(kReplacement);
      } else {
        out.push_back(ascii::to_lower(c));
      }
    }
  }

  // An attribute value with its character references decoded, NUL as
  // U+FFFD, and CR LF / CR as LF (the input stream's newline rule).
  static void decode_value(std::string_view raw, std::string& out) {
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const char c = raw[i];
      if (c == '&') {
        const std::size_t used = decode_char_ref(raw.substr(i + 1), CharRefContext::attribute, out);
        if (used == 0) {
          out.push_back('&');
        } else {
          i += used;
        }
      } else if (c == '\0') {
        out.append(kReplacement);
      } else if (c == '\r') {
        out.push_back('\n');
        if (i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
      } else {
        out.push_back(c);
      }
    }
  }

  // --- The tree builder's part ---------------------------------------------

  bool in_foreign() const {
    return !foreign_.empty() && !foreign_.back().html_integration_point && !foreign_.back().text_integration_point;
  }

  // Whether the start tag in `tag_` goes by HTML rules here: outside foreign
  // content, or at an integration point that lets it.
  bool html_rules_for_start_tag() const {
    if (foreign_.empty()) return true;
    const ForeignElement& top = foreign_.back();
    if (top.html_integration_point || !top.html_open.empty()) return true;  // HTML is current
    if (top.text_integration_point) return tag_.tag != Tag::mglyph && tag_.tag != Tag::malignmark;
    // <math><annotation-xml><svg>: the svg is SVG, by HTML rules.
    return top.ns == Namespace::math && top.name == annotation_xml_ && tag_.tag == Tag::svg;
  }

  bool breaks_out_of_foreign_content() const {
    switch (tag_.tag) {
      case Tag::breakout: case Tag::br: case Tag::p: case Tag::meta: case Tag::hr: case Tag::table:
        return true;
      case Tag::font:
        return tag_.attribute("color") != nullptr || tag_.attribute("face") != nullptr ||
               tag_.attribute("size") != nullptr;
      default:
        return false;
    }
  }

  // Pops foreign elements until HTML (or an integration point) is current.
  void leave_foreign_content() {
    while (!foreign_.empty() && !foreign_.back().html_integration_point && !foreign_.back().text_integration_point)
      pop_foreign_element();
  }

  void push_foreign_element(ForeignElement e) {
    foreign_names_.add(e.name);
    foreign_.push_back(std::move(e));
  }

  void pop_foreign_element() {
    foreign_names_.remove(foreign_.back().name);
    foreign_.pop_back();
  }

  void clear_foreign_elements() {
    foreign_.clear();
    foreign_names_.clear();
  }

  bool start_tag() {
    if (!foreign_.empty() && foreign_.front().in_table_structure && html_rules_for_start_tag() &&
        (tag_.tag == Tag::table || tag_.tag == Tag::table_part))
      clear_foreign_elements();
    if (!html_rules_for_start_tag()) {
      if (breaks_out_of_foreign_content()) {
        leave_foreign_content();
      } else {
        foreign_start_tag();
        return true;
      }
    }
    if (select_open_) return select_start_tag();
    return html_start_tag();
  }

  void foreign_start_tag() {
    const Namespace ns = foreign_.back().ns;
    if (tag_.tag == Tag::a || tag_.tag == Tag::area) {
      // An SVG <a> is a link too, and its xlink:href is its href (the tree
      // builder's adjustment of foreign attributes; the first of the two
      // written counts).
      for (std::size_t i = 0; i < tag_.attribute_count; ++i)
        if (tag_.attributes[i].name == "xlink:href") tag_.attributes[i].name = "href";
      read_element();
    }
    if (tag_.self_closing) return;
    ForeignElement e{names_.id_of(tag_.name), ns, false, false, false, {}};
    if (ns == Namespace::svg) {
      e.html_integration_point = tag_.tag == Tag::foreign_object || tag_.tag == Tag::desc || tag_.tag == Tag::title;
    } else if (ns == Namespace::math) {
      e.text_integration_point =
        tag_.tag == Tag::mi || tag_.tag == Tag::mo || tag_.tag == Tag::mn || tag_.tag == Tag::ms || tag_.tag == Tag::mtext;
      if (tag_.tag == Tag::annotation_xml) {
        const char* encoding = tag_.attribute("encoding");
        e.html_integration_point = encoding != nullptr && (ascii::iequals(encoding, "text/html") ||
                                                           ascii::iequals(encoding, "application/xhtml+xml"));
      }
    }
    push_foreign_element(std::move(e));
  }

  // "in select": only these start tags do anything; the rest, <a> included,
  // are dropped.
  bool select_start_tag() {
    switch (tag_.tag) {
      case Tag::select:  // a <select> inside one closes it
        select_open_ = false;
        return true;
      case Tag::input: case Tag::keygen: case Tag::textarea:
        select_open_ = false;
        return html_start_tag();
      case Tag::table: case Tag::table_part:  // "in select in table": a table's structure ends the select
        if (!select_in_table_) return true;
        select_open_ = false;
        return html_start_tag();
      case Tag::script:
        script_data();
        return true;
      case Tag::template_:  // a template's content is parsed in its own mode
        open_template();
        return true;
      case Tag::option: case Tag::optgroup: case Tag::hr: case Tag::html:
      default:
        return true;
    }
  }

  // An HTML element starts inside an integration point: note it (see
  // ForeignElement::html_open), with the implied ends of "in body" that
  // matter most (a new <a> ends the open one; a block ends an open <p>).
  void note_html_element() {
    // Not elements "in body" makes: tags it ignores there (table parts
    // outside a table, html, head, body, frameset, col, colgroup, frame)
    // and the void ones.
    if (foreign_.empty() || tag_.tag == Tag::svg || tag_.tag == Tag::math) return;
    const std::uint8_t flags = in_body_flags(tag_.name);
    if ((flags & kNotOpened) != 0 || (tag_.tag == Tag::table_part && !in_html_table())) return;
    HtmlOpenElements& open = foreign_.back().html_open;
    if (tag_.tag == Tag::a) open.close_formatting(a_);
    if ((flags & kClosingP) != 0) open.close_through(p_);
    open.push(names_.id_of(tag_.name), (flags & kSpecial) != 0);
  }

  // Whether a <table> is open among the HTML elements of the current
  // integration point.
  bool in_html_table() const { return foreign_.back().html_open.contains(table_); }

  // Where the tree builder puts an element: in a table's structure (not in
  // a cell or caption), before that table ("foster parenting").
  HtmlFieldCollector::TreePlace tree_place() const {
    if (!tables_.empty() && !tables_.back().holds_content()) return {tables_.back().number, tables_.back().number};
    return {tables_opened_ + 1, 0};
  }

  bool html_start_tag() {
    note_html_element();
    fields_.place(tree_place());
    switch (tag_.tag) {
      case Tag::a: case Tag::area: case Tag::base: case Tag::link: case Tag::meta:
        read_element();
        return true;
      case Tag::title:
        rcdata(true);
        return true;
      case Tag::textarea:
        rcdata(false);
        return true;
      case Tag::style: case Tag::xmp: case Tag::iframe: case Tag::noembed: case Tag::noframes:
        rawtext();
        return true;
      case Tag::script:
        script_data();
        return true;
      case Tag::plaintext:
        return false;  // the rest of the page is text
      case Tag::select:
        select_open_ = true;
        select_in_table_ = !tables_.empty();
        return true;
      case Tag::table:
        // A table started in a table, not in a cell of it, ends that one.
        if (!tables_.empty() && !tables_.back().holds_content()) tables_.pop_back();
        tables_.push_back(OpenTable{++tables_opened_});
        return true;
      case Tag::table_part:
        if (!tables_.empty()) tables_.back().start(table_part_of(tag_.name));
        return true;
      case Tag::template_:
        open_template();
        return true;
      case Tag::svg: case Tag::math:
        if (!tag_.self_closing)
          push_foreign_element(ForeignElement{names_.id_of(tag_.name),
                                              tag_.tag == Tag::svg ? Namespace::svg : Namespace::math, false, false,
                                              foreign_.empty() && !tables_.empty() && !tables_.back().holds_content(),
                                              {}});
        return true;
      default:
        return true;
    }
  }

  void end_tag() {
    if (!foreign_.empty() && !foreign_.back().html_open.empty()) {
      // HTML is current: the end tag closes an HTML element of its name
      // inside the integration point, if one is open, and nothing else.
      foreign_.back().html_open.close_through(names_.id_of(tag_.name));
    } else if (!foreign_.empty()) {
      // In foreign content (or at an integration point) an end tag closes
      // the nearest open foreign element of its name; </br> and </p> break
      // out like their start tags.
      if (in_foreign() && (tag_.tag == Tag::br || tag_.tag == Tag::p)) {
        leave_foreign_content();
        return;
      }
      const NameId name = names_.id_of(tag_.name);
      if (foreign_names_.contains(name)) {
        while (true) {
          const bool last = foreign_.back().name == name;
          pop_foreign_element();
          if (last) return;
        }
      }
    }
    if (tag_.tag == Tag::template_) close_template();
    if (tag_.tag == Tag::select) select_open_ = false;
    // "in select in table": the end tag of a table part that is open ends
    // the select; one that closes nothing is dropped.
    const bool closed_part =
      tag_.tag == Tag::table_part && !tables_.empty() && tables_.back().end(table_part_of(tag_.name));
    if (select_open_ && select_in_table_ && (tag_.tag == Tag::table || closed_part)) select_open_ = false;
    if (tag_.tag == Tag::table && !tables_.empty()) tables_.pop_back();
  }

  // A <template>'s content has an insertion mode of its own: a <select>
  // open around it does not drop the template's links, one opened in it
  // ends with it, and tables around it are none of its content's.
  void open_template() {
    templates_.push_back(Outside{select_open_, select_in_table_, std::move(tables_)});
    select_open_ = false;
    tables_.clear();
  }

  void close_template() {
    if (templates_.empty()) return;
    select_open_ = templates_.back().select_open;
    select_in_table_ = templates_.back().select_in_table;
    tables_ = std::move(templates_.back().tables);
    templates_.pop_back();
  }

  void read_element() {
    switch (tag_.tag) {
      case Tag::a:
      case Tag::area: fields_.anchor(tag_.attribute("href"), tag_.attribute("rel")); break;
      case Tag::meta: fields_.meta(tag_.attribute("name"), tag_.attribute("content")); break;
      case Tag::base: fields_.base(tag_.attribute("href")); break;
      case Tag::link: fields_.link(tag_.attribute("rel"), tag_.attribute("href")); break;
      default: break;
    }
  }

  // --- Text that is not markup ---------------------------------------------

  // Where "</name" followed by whitespace, '/' or '>' begins, from pos_
  // (the end of input when there is none).
  std::size_t appropriate_end_tag(std::string_view name) const {
    std::size_t i = pos_;
    while ((i = in_.find("</", i)) != std::string_view::npos) {
      const std::size_t after = i + 2 + name.size();
      if (after < in_.size() && ascii::iequals(in_.substr(i + 2, name.size()), name) &&
          (is_space(in_[after]) || in_[after] == '/' || in_[after] == '>'))
        return i;
      i += 2;
    }
    return in_.size();
  }

  // <title> and <textarea>: text with character references, up to the end
  // tag, which is then read as a tag.
  void rcdata(bool is_title) {
    const std::string name = tag_.name;
    const std::size_t end = appropriate_end_tag(name);
    if (is_title && fields_.wants_title()) {
      std::string text;
      const std::string_view raw = in_.substr(pos_, end - pos_);
      for (std::size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c == '&') {
          const std::size_t used = decode_char_ref(raw.substr(i + 1), CharRefContext::text, text);
          if (used == 0) {
            text.push_back('&');
          } else {
            i += used;
          }
        } else if (c == '\0') {
          text.append(kReplacement);
        } else {
          text.push_back(c);
        }
      }
      fields_.title(text);
    }
    close_raw(end);
  }

  void rawtext() { close_raw(appropriate_end_tag(tag_.name)); }

  // Skips to `end` (an appropriate end tag's '<', or the end of input) and
  // reads that end tag.
  void close_raw(std::size_t end) {
    pos_ = end;
    if (pos_ < in_.size()) {
      pos_ += 2;
      if (read_tag(true)) end_tag();
      else pos_ = in_.size();
    }
  }

  // <script>: the script data states, escaped ("<!--") and double escaped
  // ("<!--<script>"), where "</script>" does not end the script.
  void script_data() {
    enum class State { data, escaped, double_escaped } state = State::data;
    std::size_t i = pos_;
    const std::size_t n = in_.size();
    auto word_at = [&](std::size_t at, std::string_view word) {
      const std::size_t after = at + word.size();
      return after < n && ascii::iequals(in_.substr(at, word.size()), word) &&
             (is_space(in_[after]) || in_[after] == '/' || in_[after] == '>');
    };
    while (i < n) {
      const char c = in_[i];
      if (state == State::data) {
        const void* lt = std::memchr(in_.data() + i, '<', n - i);
        if (lt == nullptr) break;
        i = static_cast<std::size_t>(static_cast<const char*>(lt) - in_.data());
        if (i + 1 < n && in_[i + 1] == '/' && word_at(i + 2, "script")) {
          close_raw(i);
          return;
        }
        if (in_.substr(i + 1, 3) == "!--") {
          state = State::escaped;
          i += 4;
          // "<!--" then '-'s and '>' is back to plain script data at once.
          while (i < n && in_[i] == '-') ++i;
          if (i < n && in_[i] == '>') {
            state = State::data;
            ++i;
          }
          continue;
        }
        ++i;
        continue;
      }
      // Escaped and double escaped: "-->" ends both; '<' may start a tag.
      if (c == '-') {
        if (i + 1 < n && in_[i + 1] == '-') {
          std::size_t j = i + 2;
          while (j < n && in_[j] == '-') ++j;
          if (j < n && in_[j] == '>') {
            state = State::data;
            i = j + 1;
          } else {
            i = j;
          }
          continue;
        }
        ++i;
        continue;
      }
      if (c == '<') {
        if (i + 1 < n && in_[i + 1] == '/') {
          if (word_at(i + 2, "script")) {
            if (state == State::escaped) {
              close_raw(i);
              return;
            }
            state = State::escaped;  // a double-escaped </script> only undoes <script>
            i += 8;
            continue;
          }
        } else if (state == State::escaped && word_at(i + 1, "script")) {
          state = State::double_escaped;
          i += 7;
          continue;
        }
        ++i;
        continue;
      }
      ++i;
    }
    pos_ = n;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
  HtmlFieldCollector& fields_;
  TagToken tag_;
  std::string lowered_;
  std::vector<ForeignElement> foreign_;
  OpenNameCounts foreign_names_;  // the names in foreign_
  ElementNames names_;
  const NameId a_ = names_.id_of("a"), p_ = names_.id_of("p"), table_ = names_.id_of("table"),
               annotation_xml_ = names_.id_of("annotation-xml");
  bool select_open_ = false;
  // What a <template>'s content does not see, kept for its end: the select
  // and the tables open around it.
  struct Outside {
    bool select_open;
    bool select_in_table;
    std::vector<OpenTable> tables;
  };
  std::vector<Outside> templates_;  // open <template>s, innermost last
  bool select_in_table_ = false;  // opened inside a table: its structure ends it
  std::vector<OpenTable> tables_;  // open <table>s, innermost last
  std::uint64_t tables_opened_ = 0;
};

}  // namespace

HtmlDocument parse_html_fast(std::string_view body) {
  HtmlDocument doc;
  HtmlFieldCollector fields(doc);
  StreamParser(body, fields).run();
  return doc;
}

}  // namespace actorcrawl
