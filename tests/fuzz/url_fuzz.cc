// libFuzzer target for core/web/url: parsing and resolving arbitrary text must
// not crash, and every URL that comes out must be canonical, that is, parse
// back to itself. The seen-set and the database rely on that: a URL whose
// text changed on a second pass would be crawled twice.
//
// Input: "<absolute URL>\n<reference>"; without a newline the whole input is
// both.

#include "core/web/url.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace {

using actorcrawl::Url;

[[noreturn]] void fail(const char* what, const std::string& a, const std::string& b) {
  std::fprintf(stderr, "url_fuzz: %s\n  first:  '%s'\n  second: '%s'\n", what, a.c_str(),
               b.c_str());
  std::abort();
}

// A URL out of parse or resolve must be a fixed point of parse, and
// resolving "" or its own text against it must give it back.
void check_canonical(const std::optional<Url>& url) {
  if (!url) return;
  const std::string& text = url->str();
  if (text.size() > Url::kMaxLength) fail("longer than kMaxLength", text, "");
  const std::optional<Url> again = Url::parse(text);
  if (!again) fail("canonical text does not parse", text, "");
  if (*again != *url) fail("parse is not idempotent", text, again->str());
  const std::optional<Url> self = url->resolve("");
  if (!self || *self != *url) fail("resolving \"\" changed the URL", text, self ? self->str() : "");
  const std::optional<Url> same = url->resolve(text);
  if (!same || *same != *url) fail("resolving itself changed the URL", text, same ? same->str() : "");

  // The accessors must be total on canonical text.
  (void)url->scheme();
  (void)url->host();
  (void)url->port();
  (void)url->host_key();
  if (url->path().empty() || url->path()[0] != '/') fail("path does not start with '/'", text, "");
  (void)url->query();
  (void)url->has_query();

  const Url stripped = url->without_query_params({"utm_*", "a", ""});
  const std::optional<Url> stripped_again = Url::parse(stripped.str());
  if (!stripped_again || *stripped_again != stripped) {
    fail("without_query_params is not canonical", stripped.str(),
         stripped_again ? stripped_again->str() : "");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = input.find('\n');
  const std::string_view first = input.substr(0, newline);
  const std::string_view second =
      newline == std::string_view::npos ? input : input.substr(newline + 1);

  static const Url base = *Url::parse("http://example.com/a/b/c;p?q=1");

  const std::optional<Url> parsed = Url::parse(first);
  check_canonical(parsed);
  check_canonical(base.resolve(second));
  if (parsed) check_canonical(parsed->resolve(second));
  return 0;
}
