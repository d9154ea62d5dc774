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
// Most elements whose end tag may be omitted (<p>, <td>, <option>...) are
// not counted, since the tree builder closes them implicitly and a count
// cannot follow that. List items are, because <li><dd><li><dd>... nests
// without end: an <li> right after an open <li> (nothing counted opened
// since) is taken as its sibling, and a list's end tag closes the items
// opened in it. The estimate is rough on purpose; erring high only
// flattens a little structure, never loses a link.
//
// Four more of gumbo's walks are bounded by rewriting what it reads:
//  - formatting elements (<b>, <font>...) that an end tag or a new <p>
//    closes stay on the list of active formatting elements, and are copied
//    again ("reconstructed") before every later run of text: so at most
//    kMaxOpenFormatting are let through, and once that many are open the
//    next other tag is preceded by their end tags, which take them off the
//    list (the page's styling changes, never what is extracted);
//  - each attribute is checked against every earlier one of its tag for a
//    duplicate, so a tag with more than kMaxAttributes keeps only the
//    attributes anything reads (kept in order: the first one still wins);
//  - the adoption agency copies misnested formatting elements, and an end
//    tag of one that is no longer open in the count finds such a copy and
//    copies again: those end tags are dropped;
//  - inside <svg>/<math>, <title>, <style>, <script>... are ordinary
//    elements (an SVG <title> is even an integration point, with HTML
//    content), not text up to their end tag as in HTML.

constexpr std::size_t kMaxOpenElements = 512;
constexpr std::size_t kMaxOpenFormatting = 4;
constexpr std::size_t kMaxAttributes = 64;
// Tags shorter than this cannot hold more than kMaxAttributes attributes
// worth counting, so only longer ones are tokenized attribute by attribute.
constexpr std::size_t kLongTagBytes = 2 * kMaxAttributes;

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
    case GUMBO_TAG_P:
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

// The elements the list of active formatting elements holds (but <a>, which
// a new <a> closes, and which is never blanked).
bool is_formatting(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_B: case GUMBO_TAG_BIG: case GUMBO_TAG_CODE: case GUMBO_TAG_EM:
    case GUMBO_TAG_FONT: case GUMBO_TAG_I: case GUMBO_TAG_NOBR: case GUMBO_TAG_S:
    case GUMBO_TAG_SMALL: case GUMBO_TAG_STRIKE: case GUMBO_TAG_STRONG:
    case GUMBO_TAG_TT: case GUMBO_TAG_U:
      return true;
    default:
      return false;
  }
}

// The attributes the extraction below or the tree builder reads: links,
// <meta>, an annotation-xml's encoding, a <font> that leaves foreign
// content, an <input type=hidden> in a table (the fast parser's list,
// html_stream_parser.cc, lacks only `type`: it keeps no tables' content).
bool is_read_attribute(std::string_view name) {
  static constexpr std::string_view kRead[] = {"href", "rel", "name", "content", "encoding", "color",
                                               "face", "size", "type", "xlink:href"};
  for (std::string_view r : kRead)
    if (name.size() == r.size() && ascii::iequals(name, r)) return true;
  return false;
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
    if (rest.substr(0, 2) == "--") return past_comment(i + 2);
    // A CDATA section where the current node is foreign; elsewhere a bogus
    // comment, ended by the first '>'.
    if (rest.substr(0, 7) == "[CDATA[" && in_foreign_content()) return skip_past("]]>", i);
    return skip_past('>', i);
  }

  // After "<!--": where the comment ends, as the tokenizer ends it: "-->",
  // "--!>", and the empty "<!-->" and "<!--->".
  std::size_t past_comment(std::size_t i) const {
    if (i < body_.size() && body_[i] == '>') return i + 1;
    if (i + 1 < body_.size() && body_[i] == '-' && body_[i + 1] == '>') return i + 2;
    while (true) {
      const std::size_t dashes = body_.find("--", i);
      if (dashes == npos) return body_.size();
      std::size_t j = dashes + 2;
      while (j < body_.size() && body_[j] == '-') ++j;  // "--->" ends too
      if (j < body_.size() && body_[j] == '>') return j + 1;
      if (j + 1 < body_.size() && body_[j] == '!' && body_[j + 1] == '>') return j + 2;
      i = j;
    }
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

  // The tokenizer's attribute states over a tag whose attributes start at
  // `from`: calls on_attribute(name_begin, name_end, end) for each one (end:
  // one past its value, or past its name when it has none) and returns the
  // index of the '>' that closes the tag; npos when the tag runs to the end
  // of input, which the tokenizer then drops. A quoted value may hold '>';
  // an unquoted one ends at whitespace or '>', whatever else it holds
  // ("a=b=\"c" is one value, and its quote opens nothing). Anything that
  // rewrites a tag must know exactly where the tokenizer ends it.
  template <class OnAttribute>
  std::size_t scan_attributes(std::size_t from, OnAttribute&& on_attribute) const {
    const std::size_t n = body_.size();
    std::size_t i = from;
    while (true) {
      while (i < n && (is_html_space(body_[i]) || body_[i] == '/')) ++i;
      if (i >= n) return npos;
      if (body_[i] == '>') return i;
      const std::size_t name_begin = i++;  // an '=' first belongs to the name
      while (i < n && !is_html_space(body_[i]) && body_[i] != '/' && body_[i] != '>' && body_[i] != '=') ++i;
      const std::size_t name_stop = i;
      std::size_t j = i;
      while (j < n && is_html_space(body_[j])) ++j;
      if (j < n && body_[j] == '=') {
        ++j;
        while (j < n && is_html_space(body_[j])) ++j;
        if (j < n && (body_[j] == '"' || body_[j] == '\'')) {
          const std::size_t quote = body_.find(body_[j], j + 1);
          if (quote == npos) return npos;
          i = quote + 1;
        } else {
          while (j < n && !is_html_space(body_[j]) && body_[j] != '>') ++j;
          i = j;
        }
      }
      on_attribute(name_begin, name_stop, i);
    }
  }

  // Index of the '>' closing a tag whose attributes start at `from`.
  std::size_t tag_close(std::size_t from) const {
    return scan_attributes(from, [](std::size_t, std::size_t, std::size_t) {});
  }

  // Where scanning goes on after raw text that starts at `from`: past its
  // end tag, which is the raw text's own (a </title> there never ends an
  // SVG <title>, and so never leaves the integration point).
  std::size_t past_raw_text(std::size_t from, std::string_view name) const {
    const std::size_t end = raw_text_end(from, name);
    if (end >= body_.size()) return body_.size();
    const std::size_t close = tag_close(name_end(end + 2));
    return close == npos ? body_.size() : close + 1;
  }

  // Raw text ends at "</name" followed by whitespace, '/' or '>': the index
  // of that '<'.
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

    if (!is_formatting(tag) && formatting_open_.size() >= kMaxOpenFormatting) close_formatting(lt);
    // At an integration point HTML rules apply: nothing there leaves the
    // <svg>/<math> around it.
    if (in_foreign_content() && integration_points_ == 0 && leaves_foreign_content(tag)) {
      leave_foreign_content();
    }
    // Inside <svg>/<math> (not at an integration point) every element is
    // foreign: none holds raw text or plain text.
    const bool foreign = in_foreign_content() && integration_points_ == 0;
    TagKind kind = classify(tag);
    if (foreign && (kind == TagKind::kRawText || kind == TagKind::kPlainText)) kind = TagKind::kContainer;
    // Called for every tag that is not blanked.
    const auto keep = [&] {
      if (close - name_stop >= kLongTagBytes) limit_attributes(lt, name_stop, close);
    };
    switch (kind) {
      case TagKind::kRawText: keep(); return past_raw_text(next, name);
      case TagKind::kPlainText: keep(); return body_.size();
      case TagKind::kUncounted: keep(); return next;
      case TagKind::kContainer: break;
    }
    // "/>" really closes elements inside <svg>/<math> (and <svg/> itself);
    // on HTML elements the tokenizer ignores it. Inside an integration point
    // (<foreignObject>, <desc>, an SVG <title>, MathML's text elements)
    // content is HTML again, so there "/>" closes nothing and every element
    // counts.
    const bool foreign_root = tag == GUMBO_TAG_SVG || tag == GUMBO_TAG_MATH;
    if (is_integration_point(tag) && in_foreign_content() && !self_closing)
      ++integration_points_;
    if (self_closing && (foreign_root || foreign)) {
      keep();
      return next;
    }
    if (tag == GUMBO_TAG_LI || tag == GUMBO_TAG_DD || tag == GUMBO_TAG_DT) {
      ListItems& items = tag == GUMBO_TAG_LI ? list_items_ : definition_items_;
      if (items.open > 0 && items.open_after == open_) {  // a sibling: it closes the open one
        keep();
        return next;
      }
    }
    if (open_ >= kMaxOpenElements || (is_formatting(tag) && formatting_open_.size() >= kMaxOpenFormatting)) {
      blank(lt, next);
      return next;
    }
    keep();
    ++count(tag, name);
    ++open_;
    if (is_formatting(tag)) formatting_open_.push_back(tag);
    switch (tag) {
      case GUMBO_TAG_LI: ++list_items_.open; list_items_.open_after = open_; break;
      case GUMBO_TAG_DD: case GUMBO_TAG_DT: ++definition_items_.open; definition_items_.open_after = open_; break;
      case GUMBO_TAG_UL: case GUMBO_TAG_OL: case GUMBO_TAG_MENU: case GUMBO_TAG_DL:
        lists_.push_back(OpenList{tag, list_items_, definition_items_});
        break;
      default: break;
    }
    return next;
  }

  // A start tag `<name ...>` whose attributes run from `from` to the '>' at
  // `close`: when it has more than kMaxAttributes, it is written anew with
  // only the attributes is_read_attribute() names, in their order.
  void limit_attributes(std::size_t lt, std::size_t from, std::size_t close) {
    std::vector<std::pair<std::size_t, std::size_t>> kept;  // [begin, end) of each kept attribute
    std::size_t attributes = 0;
    scan_attributes(from, [&](std::size_t name_begin, std::size_t name_stop, std::size_t end) {
      ++attributes;
      if (is_read_attribute(body_.substr(name_begin, name_stop - name_begin))) kept.emplace_back(name_begin, end);
    });
    if (attributes <= kMaxAttributes) return;
    std::string tag(body_.substr(lt, from - lt));
    for (const auto& [begin, end] : kept) {
      tag.push_back(' ');
      tag.append(body_.substr(begin, end - begin));
    }
    if (body_[close - 1] == '/') tag.append(" /");
    tag.push_back('>');
    replace(lt, close + 1, tag);
  }

  std::size_t end_tag(std::size_t name_begin) {
    const std::size_t name_stop = name_end(name_begin);
    const std::size_t close = tag_close(name_stop);
    if (close == npos) return body_.size();
    const std::string_view name =
        body_.substr(name_begin, name_stop - name_begin);
    const GumboTag tag = gumbo_tagn_enum(name.data(), name.size());
    // A formatting element's end tag that closes none counted open would
    // send the adoption agency after the copies it made of earlier ones,
    // making new copies each time: such an end tag is dropped.
    if (is_formatting(tag) && known_[tag] == 0) {
      blank(name_begin - 2, close + 1);
      return close + 1;
    }
    if (!is_formatting(tag) && formatting_open_.size() >= kMaxOpenFormatting) close_formatting(name_begin - 2);
    // An end tag's attributes mean nothing, but the tokenizer still checks
    // each for a duplicate: a long one is written without them.
    if (close - name_stop >= kLongTagBytes) replace(name_begin - 2, close + 1, "</" + std::string(name) + ">");
    // gumbo ignores an end tag written "</x/>" inside <svg>/<math> (the
    // standard only calls the '/' a parse error): it closes nothing there.
    if (body_[close - 1] == '/' && in_foreign_content()) return close + 1;
    if (is_integration_point(tag) && integration_points_ > 0)
      --integration_points_;
    const TagKind kind = classify(tag);
    // Raw-text elements are counted only where they were foreign ones.
    if (kind == TagKind::kContainer || kind == TagKind::kRawText || kind == TagKind::kPlainText ||
        tag == GUMBO_TAG_LI || tag == GUMBO_TAG_DD || tag == GUMBO_TAG_DT) {
      std::uint32_t& n = count(tag, name);
      if (n > 0) {
        --n;
        --open_;
        if (is_formatting(tag)) forget_formatting(tag);
        if (tag == GUMBO_TAG_LI && list_items_.open > 0) --list_items_.open;
        if ((tag == GUMBO_TAG_DD || tag == GUMBO_TAG_DT) && definition_items_.open > 0) --definition_items_.open;
        if (tag == GUMBO_TAG_UL || tag == GUMBO_TAG_OL || tag == GUMBO_TAG_MENU || tag == GUMBO_TAG_DL) close_list(tag);
      }
    }
    return close + 1;
  }

  // Writes the end tags of the formatting elements counted open, innermost
  // first, before `at`, and forgets them.
  void close_formatting(std::size_t at) {
    std::string end_tags;
    for (auto it = formatting_open_.rbegin(); it != formatting_open_.rend(); ++it) {
      end_tags += "</";
      end_tags += gumbo_normalized_tagname(*it);
      end_tags += '>';
      if (known_[*it] > 0) {
        --known_[*it];
        --open_;
      }
    }
    formatting_open_.clear();
    replace(at, at, end_tags);
  }

  // The innermost formatting element of this name was closed.
  void forget_formatting(GumboTag tag) {
    for (std::size_t i = formatting_open_.size(); i-- > 0;) {
      if (formatting_open_[i] == tag) {
        formatting_open_.erase(formatting_open_.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
    }
  }

  // A list's end tag closes the items opened inside it (and any list
  // inside it): the counts go back to what they were at its start.
  void close_list(GumboTag tag) {
    while (!lists_.empty()) {
      const OpenList list = lists_.back();
      lists_.pop_back();
      forget_items(GUMBO_TAG_LI, list_items_, list.list_items);
      forget_items(GUMBO_TAG_DD, definition_items_, list.definition_items);
      if (list.tag == tag) return;
    }
  }

  struct ListItems {
    std::uint32_t open = 0;       // <li>s (or <dd>/<dt>s) counted open
    std::size_t open_after = 0;   // open_ right after the last one started
  };

  void forget_items(GumboTag tag, ListItems& items, const ListItems& before) {
    while (items.open > before.open) {
      --items.open;
      // <dd> and <dt> share one count in ListItems but not in known_.
      std::uint32_t& n = known_[tag] > 0 || tag != GUMBO_TAG_DD ? known_[tag] : known_[GUMBO_TAG_DT];
      if (n > 0) {
        --n;
        --open_;
      }
    }
    items.open_after = before.open_after;
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
      case GUMBO_TAG_TITLE:  // SVG's (an HTML <title> is raw text, never counted)
        return true;
      default:
        return false;
    }
  }

  void blank(std::size_t begin, std::size_t end) { replace(begin, end, " "); }

  void replace(std::size_t begin, std::size_t end, std::string_view with) {
    if (!blanking_) {
      blanking_ = true;
      out_->reserve(body_.size());
    }
    out_->append(body_.data() + copied_, begin - copied_);
    out_->append(with);
    copied_ = end;
  }

  std::string_view body_;
  std::string* out_ = nullptr;
  bool blanking_ = false;
  std::size_t copied_ = 0;  // body_ bytes before this are already in out_
  std::size_t open_ = 0;
  std::size_t integration_points_ = 0;  // open ones inside <svg>/<math>
  std::vector<GumboTag> formatting_open_;  // counted open, innermost last (kMaxOpenFormatting at most)
  ListItems list_items_;                 // <li>
  ListItems definition_items_;           // <dd> and <dt>
  struct OpenList {
    GumboTag tag;
    ListItems list_items;        // as they were when the list started
    ListItems definition_items;
  };
  std::vector<OpenList> lists_;  // <ul>, <ol>, <menu>, <dl> counted open, innermost last
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

// gumbo 0.10 aborts the process (an assertion in handle_in_table) on pages
// with a CDATA section in SVG or MathML and a table around it in the tree
// builder's view: "<table><math><mi><![CDATA[T]]>e". Which pages it reads
// that way cannot be told without its tree builder, so a page holding a
// CDATA section and an <svg> or <math> is read by the fast parser instead,
// which follows the standard there (the differential test holds the two
// parsers to the same result): a crawl never dies on a page.
namespace {

bool contains_nocase(std::string_view haystack, std::string_view needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
           return ascii::to_lower(a) == b;
         }) != haystack.end();
}

bool gumbo_may_abort(std::string_view body) {
  return body.find("<![CDATA[") != std::string_view::npos &&
         (contains_nocase(body, "<svg") || contains_nocase(body, "<math"));
}

}  // namespace

HtmlDocument parse_html_html5(std::string_view body) {
  if (gumbo_may_abort(body)) return parse_html_fast(body);
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
