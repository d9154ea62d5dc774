#include "core/web/html_fields.h"

#include "core/web/ascii.h"
#include "core/web/charset.h"

namespace actorcrawl {
namespace {

using ascii::is_alpha;
using ascii::is_html_space;

std::string_view trim_html_space(std::string_view s) { return ascii::trim_if(s, is_html_space); }

// Calls `on_token` for each token of a separated list: rel and name values
// are split on whitespace, meta robots content also on commas.
template <typename OnToken>
void for_each_token(std::string_view list, bool split_on_commas,
                    OnToken&& on_token) {
  auto is_separator = [split_on_commas](char c) {
    return is_html_space(c) || (split_on_commas && c == ',');
  };
  std::size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && is_separator(list[i])) ++i;
    const std::size_t begin = i;
    while (i < list.size() && !is_separator(list[i])) ++i;
    if (i > begin) on_token(list.substr(begin, i - begin));
  }
}

bool has_token(std::string_view list, std::string_view token) {
  bool found = false;
  for_each_token(list, false, [&](std::string_view t) {
    found = found || ascii::iequals(t, token);
  });
  return found;
}

// Appends `text` with each run of ASCII whitespace turned into one space and
// no leading space. Stops once `out` is past `limit`, so a multi-megabyte
// title costs no more than a short one; finish_collapsed() then cuts exactly.
void append_collapsed(std::string_view text, std::size_t limit,
                      std::string& out) {
  for (char c : text) {
    if (out.size() > limit) return;
    if (!is_html_space(c)) {
      out.push_back(c);
    } else if (!out.empty() && out.back() != ' ') {
      out.push_back(' ');
    }
  }
}

// Cuts `s` to at most `limit` bytes without splitting a UTF-8 sequence, then
// drops the single space a collapsed text may end with.
void finish_collapsed(std::string& s, std::size_t limit) {
  if (s.size() > limit) {
    std::size_t cut = limit;
    // s[cut] is the first byte to go; while it is a continuation byte
    // (10xxxxxx), the character it belongs to started before the cut.
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) {
      --cut;
    }
    s.resize(cut);
  }
  if (!s.empty() && s.back() == ' ') s.pop_back();
}

// What a parser read is kept as valid UTF-8 even when the page was not
// (page_processor repairs a page before parsing; a caller of parse_html may
// not have): each bad sequence becomes U+FFFD.
void repair_utf8(std::string& s) {
  if (!is_valid_utf8(s)) s = to_utf8(s, "utf-8");
}

// Links on a page of a site, commonly: 30 to 80 (the synthetic web has 30,
// cppreference 79).
constexpr std::size_t kUsualLinks = 64;

// Links a crawler can never fetch. An empty href and a fragment ("#top")
// are kept: they resolve to the document's base URL, which <base href> can
// make another page (link_selection drops them when it is the page itself).
bool is_fetchable_href(std::string_view href) {
  for (std::string_view scheme : {"javascript:", "mailto:", "tel:", "data:"}) {
    if (ascii::starts_with_nocase(href, scheme)) return false;
  }
  return true;
}

}  // namespace

void HtmlFieldCollector::anchor(const char* href, const char* rel) {
  if (href == nullptr) return;
  const std::string_view trimmed = trim_html_space(href);
  if (!is_fetchable_href(trimmed)) return;
  HtmlLink link;
  link.href.assign(trimmed);
  repair_utf8(link.href);
  if (rel != nullptr) {
    link.nofollow = has_token(rel, "nofollow") || has_token(rel, "ugc") || has_token(rel, "sponsored");
  }
  // Room for a page's usual links at once, rather than growing (and moving
  // every link) five times on the way to them.
  if (doc_.links.capacity() == 0)
    doc_.links.reserve(kUsualLinks);
  doc_.links.push_back(std::move(link));
}

bool HtmlFieldCollector::takes(bool& seen, std::uint64_t& taken_bound) {
  if (seen && !displaces(taken_bound)) return false;
  seen = true;
  taken_bound = place_.bound;
  return true;
}

void HtmlFieldCollector::title(std::string_view text) {
  if (!takes(title_seen_, title_bound_)) return;
  doc_.title.clear();
  append_collapsed(text, kMaxTitleBytes, doc_.title);
  repair_utf8(doc_.title);
  finish_collapsed(doc_.title, kMaxTitleBytes);
}

void HtmlFieldCollector::meta(const char* name, const char* content) {
  if (name == nullptr || content == nullptr) return;
  const std::string_view n = trim_html_space(name);
  if (ascii::iequals(n, "description")) {
    if (!takes(description_seen_, description_bound_)) return;
    doc_.description.clear();
    append_collapsed(content, kMaxDescriptionBytes, doc_.description);
    repair_utf8(doc_.description);
    finish_collapsed(doc_.description, kMaxDescriptionBytes);
  } else if (ascii::iequals(n, "robots")) {
    // Directives add up across several robots tags.
    for_each_token(content, true, [this](std::string_view token) {
      const bool none = ascii::iequals(token, "none");
      doc_.meta_noindex |= none || ascii::iequals(token, "noindex");
      doc_.meta_nofollow |= none || ascii::iequals(token, "nofollow");
    });
  }
}

// Only the first <base> with an href counts, as in browsers.
void HtmlFieldCollector::base(const char* href) {
  if (href == nullptr || !takes(base_seen_, base_bound_)) return;
  doc_.base_href.assign(trim_html_space(href));
  repair_utf8(doc_.base_href);
}

void HtmlFieldCollector::link(const char* rel, const char* href) {
  if (rel == nullptr || href == nullptr || !has_token(rel, "canonical")) return;
  // An empty href takes no canonical (a later one still may).
  if (trim_html_space(href).empty() || !takes(canonical_seen_, canonical_bound_)) return;
  doc_.canonical.assign(trim_html_space(href));
  repair_utf8(doc_.canonical);
}

}  // namespace actorcrawl
