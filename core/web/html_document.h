// What the crawler reads out of an HTML page, parsed with gumbo (the HTML5
// parsing algorithm, so malformed markup parses the way browsers see it).
#pragma once

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
                                // empty/fragment-only/javascript: dropped
};

// Never fails: gumbo recovers from any byte sequence. Text is truncated to
// sane lengths (title 1,000 bytes, description 4,000) so a hostile page
// cannot bloat the database; truncation never splits a UTF-8 sequence.
HtmlDocument parse_html(std::string_view body);

}  // namespace actorcrawl
