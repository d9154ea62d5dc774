#include "core/web/robots_directives.h"

#include "core/web/ascii.h"

namespace actorcrawl {

namespace {

std::string lower_trimmed(std::string_view s) { return ascii::lowercase(ascii::trim(s)); }

bool is_valued_directive(const std::string& name) {
  return name == "unavailable_after" || name == "max-snippet" || name == "max-image-preview" ||
         name == "max-video-preview";
}

}  // namespace

std::string RobotsDirectives::text() const {
  if (noindex && nofollow)
    return "noindex,nofollow";
  return noindex ? "noindex" : nofollow ? "nofollow" : "";
}

void read_x_robots_tag(std::string_view header, std::string_view product_token, RobotsDirectives& out) {
  const std::string token = lower_trimmed(product_token);
  bool for_us = true;
  std::size_t start = 0;
  while (start <= header.size()) {
    auto end = header.find(',', start);
    std::string part = lower_trimmed(header.substr(start, end == std::string_view::npos ? header.npos : end - start));
    if (auto colon = part.find(':'); colon != std::string::npos) {
      std::string name = lower_trimmed(std::string_view{part}.substr(0, colon));
      if (is_valued_directive(name)) {
        part.clear();
      } else {
        for_us = name == token;
        part = lower_trimmed(std::string_view{part}.substr(colon + 1));
      }
    }
    if (for_us) {
      if (part == "noindex" || part == "none")
        out.noindex = true;
      if (part == "nofollow" || part == "none")
        out.nofollow = true;
    }
    if (end == std::string_view::npos)
      break;
    start = end + 1;
  }
}

}  // namespace actorcrawl
