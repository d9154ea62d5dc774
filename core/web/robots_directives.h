// Page-level robots directives: <meta name=robots content=...> and the
// X-Robots-Tag header. The crawler acts on two of them: noindex (the page's
// text is not kept) and nofollow (its links are not followed); "none" is
// both.
#pragma once

#include <string>
#include <string_view>

namespace actorcrawl {

struct RobotsDirectives {
  bool noindex = false;
  bool nofollow = false;
  // "noindex,nofollow", "noindex", "nofollow" or "" (stored in pages).
  std::string text() const;
};

// Reads an X-Robots-Tag value. Directives after "<agent>:" address only that
// crawler, until the next agent, so "otherbot: noindex" is ignored and
// "actorcrawl: nofollow" applies when `product_token` is actorcrawl.
// Valued directives (max-snippet: 20, unavailable_after: ...) are skipped.
void read_x_robots_tag(std::string_view header, std::string_view product_token, RobotsDirectives& out);

}  // namespace actorcrawl
