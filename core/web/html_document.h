// What the crawler reads out of an HTML page. Two parsers read it:
//  - fast (the default): a streaming HTML5 tokenizer that builds no tree and
//    keeps only the elements below (core/web/html_stream_parser.cc);
//  - html5: gumbo, the whole HTML5 tree builder, then a walk of the tree
//    (core/web/html_tree_parser.cc); the reference the fast one is tested
//    against (tests/unit/web/html_parser_differential_test.cc).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl {

struct HtmlLink {
  std::string href;       // the attribute as written, whitespace-trimmed
  bool nofollow = false;  // rel contains "nofollow" (also "ugc"/"sponsored")
};

struct HtmlDocument {
  std::string title;        // <title> text, whitespace collapsed, trimmed
  std::string description;  // <meta name=description content>, collapsed
  std::string base_href;    // first <base href>, empty when absent
  std::string canonical;    // <link rel=canonical href>, as written
  bool meta_nofollow = false;  // <meta name=robots content=...nofollow/none>
  bool meta_noindex = false;   // <meta name=robots content=...noindex/none>
  std::vector<HtmlLink> links;  // <a href> and <area href>, document order,
                                // javascript:/mailto:/tel:/data: dropped
};

enum class HtmlParser { fast, html5 };

// "fast" / "html5", and back (nullopt for any other name).
const char* to_string(HtmlParser parser);
std::optional<HtmlParser> html_parser_from_name(std::string_view name);

// The body is UTF-8 (page_processor converts other charsets first). Never
// fails: both parsers recover from any byte sequence. Text is truncated to
// sane lengths (title 1,000 bytes, description 4,000) so a hostile page
// cannot bloat the database; truncation never splits a UTF-8 sequence.
HtmlDocument parse_html(std::string_view body, HtmlParser parser = HtmlParser::fast);
HtmlDocument parse_html_fast(std::string_view body);
HtmlDocument parse_html_html5(std::string_view body);

}  // namespace actorcrawl
