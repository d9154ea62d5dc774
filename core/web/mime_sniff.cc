#include "core/web/mime_sniff.h"

#include "core/web/ascii.h"

namespace actorcrawl {

namespace {

constexpr std::size_t kResourceHeaderBytes = 1445;

// A tag-terminating byte: space or '>'.
bool ends_tag(char c) { return c == ' ' || c == '>'; }

}  // namespace

bool sniffs_as_html(std::string_view body) {
  std::string_view header = body.substr(0, kResourceHeaderBytes);
  std::size_t i = 0;
  // The standard's whitespace bytes here are HTML's: TAB, LF, FF, CR, space.
  while (i < header.size() && ascii::is_html_space(header[i])) ++i;
  header.remove_prefix(i);
  static constexpr std::string_view kPatterns[] = {"<!--", "<!doctype html", "<html", "<head", "<script", "<iframe",
                                                   "<h1", "<div", "<font", "<table", "<a", "<style",
                                                   "<title", "<b", "<body", "<br", "<p"};
  for (std::string_view pattern : kPatterns) {
    if (header.size() > pattern.size() && ascii::iequals(header.substr(0, pattern.size()), pattern) &&
        ends_tag(header[pattern.size()]))
      return true;
  }
  return false;
}

bool is_sniffable_type(std::string_view declared) {
  return declared.empty() || declared == "application/octet-stream" || declared == "text/plain" ||
         declared == "unknown/unknown" || declared == "application/unknown" || declared == "*/*";
}

}  // namespace actorcrawl
