// What the two HTML parsers (core/web/html_document.h) must agree on, for the
// differential test and the fuzz target alike: every field of HtmlDocument,
// the links in order. compare_parsers() returns "" when they agree, else a
// description of the first difference.
//
// Links are compared as the crawler uses them: each distinct link once, in
// the order of its first appearance (link selection and the links table keep
// one of each). That is the first accepted divergence: the tree builder
// clones an <a> it has to reopen ("reconstruct the active formatting
// elements": "<a href=x><div>", "<a href=x></noscript> text"), so a tree
// holds the same link twice where the page wrote it once; a streaming
// parser reads each tag once.
//
// The second: gumbo replaces control characters (but tab, LF, FF, CR) and
// noncharacters with U+FFFD as it reads them; the HTML Standard calls them
// parse errors and keeps them, as browsers and the fast parser do (a link's
// "\x01" is then percent-encoded by the URL parser, as a browser would).
// Both documents have such code points replaced before they are compared.
//
// The third: the tree builder moves content misnested in a table before
// the table ("foster parenting": "<table><a href=x><tr>..." puts the link
// ahead of the table), so in a tree the links of such a page are not in the
// order the page wrote them; the fast parser keeps the page's order. On a
// page with a <table>, links that are in a different order are compared as
// sets: the same links either way, none lost, none added.
//
// The fourth follows from the second: a title or description cut at its
// cap (html_fields.h) is cut at another character when gumbo's control
// characters took three bytes each; there the text both kept is compared.
//
// The other accepted divergences are rules, each with its reason; a page
// that falls under one is not compared (accepted_divergence() names the
// rule). All are where the fast parser follows the standard or a browser
// more closely than gumbo 0.10:
//  - "repeated-valueless-attribute": "<a x x href=/p>", "<a x=1 x ef=/p>".
//    The standard drops the second x and keeps what follows; gumbo loses
//    the attributes after it, or glues the next name to it ("xef"), and so
//    loses a link or makes one.
//  - "nul-starting-attribute-name": "<a \0href=/p>". The standard keeps the
//    NUL in the attribute's name (as U+FFFD), so there is no href and no
//    link; gumbo 0.10 drops the NUL and finds a link.
//  - "foreign-decorated-end-tag": "<svg><title></title/><title>x</title>".
//    An end tag with anything between its name and '>' is the plain end
//    tag to the standard; gumbo 0.10, at the end tag of an integration
//    point (svg title, math mi), closes the whole <svg> or <math>, so the
//    second <title> is the page's title to it and SVG's to a browser.
//  - "overlong-numeric-reference": "&#333333333333;". Past U+10FFFF the
//    standard reads U+FFFD; gumbo 0.10's number wraps around.
//  - "empty-end-tag-with-foreign-content": "</><svg></svg><textarea>..."
//    The tokenizer drops "</>"; after one, gumbo 0.10 reads a <textarea> or
//    <title> after foreign content as markup, not text.
//  - "frameset": after a <frameset>, gumbo drops every element but frames
//    (a browser shows the frames, not the rest); the fast parser, which
//    keeps no insertion mode, still reads links that follow one. Frameset
//    pages are obsolete, and a link there is still a link a site published.
//  - "foreign-unmatched-end-tag": in <svg>/<math>, an end tag that closes
//    no open element. The HTML Standard ends foreign content at </p> and
//    </br> as it does at <p> and <br> (a change of 2016), and leaves any
//    other such end tag alone ("<svg></r><textarea>": the textarea is SVG's,
//    and what follows it markup); gumbo 0.10 does the opposite in both, so
//    a <title> after "<svg></p>" is SVG's to gumbo and the page's to a
//    browser. Real pages close what they open in SVG; the rule exempts only
//    pages that do not.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/encoding/percent_encoding.h"
#include "core/web/ascii.h"
#include "core/web/html_document.h"
#include "core/web/html_fields.h"

namespace actorcrawl::testing {

inline std::size_t find_nocase(std::string_view haystack, std::string_view needle, std::size_t from = 0) {
  for (std::size_t i = from; i + needle.size() <= haystack.size(); ++i)
    if (ascii::iequals(haystack.substr(i, needle.size()), needle)) return i;
  return std::string_view::npos;
}

inline bool contains_nocase(std::string_view haystack, std::string_view needle) {
  return find_nocase(haystack, needle) != std::string_view::npos;
}

inline bool is_tag_name_char(char c) {
  return c != '>' && c != '/' && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\0';
}

// Inside an <svg> (<math>) region, up to the end tag that closes it or the
// end of the page: an end tag whose name no start tag in the region had
// ("</p>", "</r>"). The standard ends foreign content at </p> and </br>,
// and otherwise leaves an unmatched end tag alone; gumbo 0.10 does
// neither quite so.
// Where `<name` or `</name` (as `prefix`) starts a tag of exactly that
// name at or after `from` ("<svg>", "<svg/", not "<svgs>").
inline std::size_t find_tag(std::string_view html, std::string_view prefix, std::size_t from) {
  for (std::size_t at = find_nocase(html, prefix, from); at != std::string_view::npos;
       at = find_nocase(html, prefix, at + 1)) {
    const std::size_t after = at + prefix.size();
    if (after >= html.size() || !is_tag_name_char(html[after])) return at;
  }
  return std::string_view::npos;
}

// Where the markup that starts with the '<' at `lt` ends (the index after
// it): a comment at its "-->" or "--!>", a bogus comment or DOCTYPE at
// the first '>', a tag at the '>' outside a quoted attribute value
// ("<a title='>'>"), as the tokenizer reads them.
inline std::size_t markup_end(std::string_view html, std::size_t lt) {
  if (html.substr(lt, 4) == "<!--") {
    if (html.substr(lt + 4, 1) == ">") return lt + 5;   // "<!-->"
    if (html.substr(lt + 4, 2) == "->") return lt + 6;  // "<!--->"
    for (std::size_t i = lt + 4; i < html.size(); ++i) {
      if (html.substr(i, 3) == "-->") return i + 3;
      if (html.substr(i, 4) == "--!>") return i + 4;
    }
    return html.size();
  }
  if (lt + 1 < html.size() && (html[lt + 1] == '!' || html[lt + 1] == '?' ||
                               (html[lt + 1] == '/' && (lt + 2 >= html.size() || !ascii::is_alpha(html[lt + 2]))))) {
    // A bogus comment or a DOCTYPE: to the first '>', quotes or not.
    const std::size_t gt = html.find('>', lt);
    return gt == std::string_view::npos ? html.size() : gt + 1;
  }
  // The tokenizer's tag states, without their output: the name, then
  // attributes, each a name (which may start with '='), maybe '=' and a
  // value, quoted or not.
  const std::size_t n = html.size();
  auto space = [&html](std::size_t i) {
    const char c = html[i];
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
  };
  std::size_t i = lt + 1;
  while (i < n && !space(i) && html[i] != '/' && html[i] != '>') ++i;  // the name
  while (i < n) {
    while (i < n && (space(i) || html[i] == '/')) ++i;
    if (i >= n) break;
    if (html[i] == '>') return i + 1;
    ++i;  // an attribute name's first character, '=' included
    while (i < n && !space(i) && html[i] != '/' && html[i] != '>' && html[i] != '=') ++i;
    while (i < n && space(i)) ++i;
    if (i >= n || html[i] != '=') continue;
    ++i;
    while (i < n && space(i)) ++i;
    if (i < n && (html[i] == '"' || html[i] == '\'')) {
      const std::size_t close = html.find(html[i], i + 1);
      if (close == std::string_view::npos) return n;
      i = close + 1;
    } else {
      while (i < n && !space(i) && html[i] != '>') ++i;
    }
  }
  return n;
}

inline bool has_unmatched_end_tag_in_foreign_content(std::string_view html, std::string_view root) {
  const std::string open = "<" + std::string(root);
  for (std::size_t at = find_tag(html, open, 0); at != std::string_view::npos; at = find_tag(html, open, at + 1)) {
    // The region runs to the end tag that closes this root, nested roots
    // counted ("<svg><svg></svg>" leaves the first open), or to the end.
    std::map<std::string, int> unclosed;  // started and not yet ended, by name
    int depth = 0;
    for (std::size_t i = at; i + 1 < html.size(); ++i) {
      if (html[i] != '<') continue;
      const bool end_tag = html[i + 1] == '/';
      std::size_t j = i + (end_tag ? 2 : 1);
      if (j >= html.size()) break;
      if (!ascii::is_alpha(html[j])) {
        // "<!--", "<!x", "<?x", "</ x": comments, to their end; "<<", "< ": text.
        if (html[i + 1] == '!' || html[i + 1] == '?' || end_tag) i = markup_end(html, i) - 1;
        continue;
      }
      std::string name;
      while (j < html.size() && is_tag_name_char(html[j])) name += ascii::to_lower(html[j++]);
      i = markup_end(html, i) - 1;  // what the tag holds is no tag
      if (name == root) {
        depth += end_tag ? -1 : 1;
        if (depth == 0) break;
      } else if (!end_tag) {
        ++unclosed[name];
      } else if (unclosed[name]-- <= 0) {  // "<svg><a></a></a>": the second closes nothing
        return true;
      }
    }
  }
  return false;
}

inline std::string controls_replaced(const std::string& s);

// Calls `visit(attributes)` with what follows the name in each tag of an
// element whose attributes the crawler reads (a, area, link, base, meta),
// up to its '>' outside quoted values ("<a href='>' x x>"); stops at the
// first visit that returns true, and returns whether one did.
template <class Visit>
bool any_read_tag(std::string_view html, Visit visit) {
  for (std::size_t lt = html.find('<'); lt != std::string_view::npos; lt = html.find('<', lt + 1)) {
    const std::string_view tag = html.substr(lt + 1, markup_end(html, lt) - lt - 1);
    std::size_t i = 0;
    std::string tag_name;
    while (i < tag.size() && is_tag_name_char(tag[i])) tag_name += ascii::to_lower(tag[i++]);
    if (tag_name != "a" && tag_name != "area" && tag_name != "link" && tag_name != "base" && tag_name != "meta")
      continue;
    if (visit(tag.substr(i))) return true;
  }
  return false;
}

// A tag in which an attribute without a value ("<a x x href=...>") is
// written twice. The standard drops the second and keeps what follows;
// gumbo 0.10 loses the attributes that follow, so the link is gone.
inline bool has_repeated_valueless_attribute(std::string_view html) {
  return any_read_tag(html, [](std::string_view tag) {
    std::set<std::string> valueless;
    std::set<std::string> seen;
    std::size_t i = 0;
    while (i < tag.size()) {
      while (i < tag.size() && !is_tag_name_char(tag[i])) ++i;
      std::string name;
      while (i < tag.size() && is_tag_name_char(tag[i]) && tag[i] != '=') name += ascii::to_lower(tag[i++]);
      if (name.empty()) {
        ++i;
        continue;
      }
      // gumbo reads a control character as U+FFFD: "\x03" and U+FFFD are
      // the same name to it.
      name = controls_replaced(name);
      if (valueless.count(name) > 0) return true;
      const bool has_value = i < tag.size() && tag[i] == '=';
      if (!has_value && seen.count(name) > 0) return true;  // "<a x=1 x ef=y>": gumbo reads "xef"
      if (!has_value) valueless.insert(name);
      seen.insert(name);
      if (has_value) {  // skip the value
        ++i;
        if (i < tag.size() && (tag[i] == '"' || tag[i] == '\'')) {
          const std::size_t q = tag.find(tag[i], i + 1);
          i = q == std::string_view::npos ? tag.size() : q + 1;
        } else {
          while (i < tag.size() && is_tag_name_char(tag[i])) ++i;
        }
      }
    }
    return false;
  });
}

// A NUL where an attribute name starts ("<a \0href=x>"), in a tag of an
// element the crawler reads. The standard makes it part of the name
// (U+FFFD "href": no link); gumbo 0.10 drops it and reads an href.
inline bool has_nul_starting_attribute_name(std::string_view html) {
  return any_read_tag(html, [](std::string_view attributes) {
    // attributes[0] follows the tag's name: a NUL there is part of the name.
    for (std::size_t i = 1; i < attributes.size(); ++i) {
      const char before = attributes[i - 1];
      if (attributes[i] == '\0' && (!is_tag_name_char(before) || before == '"' || before == '\'')) return true;
    }
    return false;
  });
}

// In a page with <svg> or <math>, an end tag with something between its
// name and its '>' ("</title/>", "</mi x>"). The standard reads it as the
// plain end tag; gumbo 0.10, at an integration point's end tag, closes the
// whole <svg> or <math> instead.
inline bool has_decorated_end_tag_near_foreign_content(std::string_view html) {
  if (find_tag(html, "<svg", 0) == std::string_view::npos && find_tag(html, "<math", 0) == std::string_view::npos)
    return false;
  for (std::size_t lt = html.find("</"); lt != std::string_view::npos; lt = html.find("</", lt + 1)) {
    std::size_t i = lt + 2;
    if (i >= html.size() || !ascii::is_alpha(html[i])) continue;
    while (i < html.size() && is_tag_name_char(html[i])) ++i;
    if (i < html.size() && html[i] != '>') return true;
  }
  return false;
}

// A numeric character reference too long for a 32-bit number
// ("&#333333333333;"). The standard reads any number past U+10FFFF as
// U+FFFD; gumbo 0.10 lets the number wrap around and reads some other
// character.
inline bool has_overlong_numeric_reference(std::string_view html) {
  for (std::size_t at = html.find("&#"); at != std::string_view::npos; at = html.find("&#", at + 1)) {
    std::size_t i = at + 2;
    const bool hex = i < html.size() && (html[i] == 'x' || html[i] == 'X');
    if (hex) ++i;
    std::size_t digits = 0;
    while (i < html.size() && (hex ? is_hex_digit(html[i]) : ascii::is_digit(html[i]))) {
      ++digits;
      ++i;
    }
    if (digits > (hex ? 6u : 7u)) return true;
  }
  return false;
}

// The accepted divergence a page may fall under ("" for none). A cheap,
// conservative test on the bytes: a page that could fall under a rule is
// exempt from the comparison, never one that could not.
inline std::string accepted_divergence(std::string_view html) {
  if (contains_nocase(html, "<frameset")) return "frameset";
  if (has_repeated_valueless_attribute(html)) return "repeated-valueless-attribute";
  if (has_nul_starting_attribute_name(html)) return "nul-starting-attribute-name";
  if (has_overlong_numeric_reference(html)) return "overlong-numeric-reference";
  if (has_unmatched_end_tag_in_foreign_content(html, "svg") ||
      has_unmatched_end_tag_in_foreign_content(html, "math"))
    return "foreign-unmatched-end-tag";
  if (has_decorated_end_tag_near_foreign_content(html)) return "foreign-decorated-end-tag";
  // "</><svg></svg><textarea><a href=x>": the tokenizer drops "</>"; after
  // one, gumbo 0.10 no longer reads a <textarea> or <title> that follows
  // foreign content as text, and finds markup in it.
  if (html.find("</>") != std::string_view::npos &&
      (find_tag(html, "<svg", 0) != std::string_view::npos || find_tag(html, "<math", 0) != std::string_view::npos))
    return "empty-end-tag-with-foreign-content";
  return "";
}

// `s` with every control (but tab, LF, FF, CR) and noncharacter as U+FFFD.
inline std::string controls_replaced(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t len = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (i + len > s.size()) len = 1;
    std::uint32_t cp = b;
    if (len == 2) cp = ((b & 0x1Fu) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu);
    if (len == 3)
      cp = ((b & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
    if (len == 4)
      cp = ((b & 0x07u) << 18) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 12) |
           ((static_cast<unsigned char>(s[i + 2]) & 0x3Fu) << 6) | (static_cast<unsigned char>(s[i + 3]) & 0x3Fu);
    const bool control = (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\f' && cp != '\r' && cp != 0) ||
                         (cp >= 0x7F && cp <= 0x9F);
    const bool noncharacter = (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFEu) == 0xFFFEu;
    if (control || noncharacter) {
      out += "\xEF\xBF\xBD";
    } else {
      out.append(s, i, len);
    }
    i += len;
  }
  return out;
}

inline HtmlDocument controls_replaced(const HtmlDocument& doc) {
  HtmlDocument out = doc;
  for (std::string* s : {&out.title, &out.description, &out.base_href, &out.canonical}) *s = controls_replaced(*s);
  for (auto& link : out.links) link.href = controls_replaced(link.href);
  return out;
}

// Each distinct link (href and nofollow) once, in first-appearance order.
inline std::vector<HtmlLink> distinct_links(const std::vector<HtmlLink>& links) {
  std::vector<HtmlLink> out;
  std::set<std::pair<std::string, bool>> seen;
  for (const auto& l : links)
    if (seen.insert({l.href, l.nofollow}).second) out.push_back(l);
  return out;
}

inline std::string compare_parsers(const HtmlDocument& fast_doc, const HtmlDocument& html5_doc,
                                   std::string_view page) {
  HtmlDocument fast = controls_replaced(fast_doc);
  HtmlDocument html5 = controls_replaced(html5_doc);
  fast.links = distinct_links(fast.links);
  html5.links = distinct_links(html5.links);
  std::ostringstream out;
  auto field = [&out](const char* name, const std::string& a, const std::string& b) {
    if (a != b && out.tellp() == 0) out << name << ": fast \"" << a << "\", html5 \"" << b << "\"";
  };
  // A text cut at its cap: gumbo's control characters were three bytes
  // each (U+FFFD) before the cut, the fast parser's one, so the cut falls
  // at another character; what both kept must agree.
  auto capped = [&field](const char* name, const std::string& a, const std::string& b, std::size_t cap) {
    if (a.size() + 4 > cap || b.size() + 4 > cap) {
      const std::size_t n = std::min(a.size(), b.size());
      field(name, a.substr(0, n), b.substr(0, n));
    } else {
      field(name, a, b);
    }
  };
  capped("title", fast.title, html5.title, HtmlFieldCollector::kMaxTitleBytes);
  capped("description", fast.description, html5.description, HtmlFieldCollector::kMaxDescriptionBytes);
  field("base_href", fast.base_href, html5.base_href);
  field("canonical", fast.canonical, html5.canonical);
  if (fast.meta_nofollow != html5.meta_nofollow && out.tellp() == 0) out << "meta_nofollow differs";
  if (fast.meta_noindex != html5.meta_noindex && out.tellp() == 0) out << "meta_noindex differs";
  if (out.tellp() != 0) return out.str();
  if (contains_nocase(page, "<table")) {
    // Foster parenting may reorder: the same links, as sets.
    std::set<std::pair<std::string, bool>> a, b;
    for (const auto& l : fast.links) a.insert({l.href, l.nofollow});
    for (const auto& l : html5.links) b.insert({l.href, l.nofollow});
    if (a == b) return "";
  }
  const std::size_t n = std::min(fast.links.size(), html5.links.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (fast.links[i].href != html5.links[i].href || fast.links[i].nofollow != html5.links[i].nofollow) {
      out << "link " << i << ": fast \"" << fast.links[i].href << "\"" << (fast.links[i].nofollow ? " nofollow" : "")
          << ", html5 \"" << html5.links[i].href << "\"" << (html5.links[i].nofollow ? " nofollow" : "");
      return out.str();
    }
  }
  if (fast.links.size() != html5.links.size()) {
    out << "links: fast " << fast.links.size() << ", html5 " << html5.links.size() << "; the first extra: \""
        << (fast.links.size() > n ? fast.links[n].href : html5.links[n].href) << "\"";
    return out.str();
  }
  return "";
}

}  // namespace actorcrawl::testing
