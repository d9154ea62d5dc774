// Helpers of the sitemap tests: gzip made here with zlib, documents built
// from parts, and a parser run over a body in chunks.
#pragma once

#include <zlib.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/sitemap/sitemap_parser.h"
#include "core/sitemap/sitemap_scope.h"
#include "core/web/url.h"

namespace actorcrawl::testing {

inline constexpr const char* kSitemapNs = "http://www.sitemaps.org/schemas/sitemap/0.9";

// Gzip as one streaming compressor: feed text, take the compressed bytes
// made so far.
class Gzipper {
 public:
  explicit Gzipper(int level = 9) {
    if (deflateInit2(&zs_, level, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("deflateInit2");
  }
  ~Gzipper() { deflateEnd(&zs_); }
  Gzipper(const Gzipper&) = delete;
  Gzipper& operator=(const Gzipper&) = delete;

  std::string add(std::string_view text) { return run(text, Z_NO_FLUSH); }
  // Adds `text` and flushes it out, so that nothing of it is held back.
  std::string add_flushed(std::string_view text) { return run(text, Z_SYNC_FLUSH); }
  std::string end() { return run({}, Z_FINISH); }

 private:
  std::string run(std::string_view text, int flush) {
    std::string out;
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    zs_.avail_in = static_cast<uInt>(text.size());
    char buffer[16384];
    int rc = Z_OK;
    do {
      zs_.next_out = reinterpret_cast<Bytef*>(buffer);
      zs_.avail_out = sizeof buffer;
      rc = deflate(&zs_, flush);
      out.append(buffer, sizeof buffer - zs_.avail_out);
    } while (zs_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return out;
  }
  z_stream zs_{};
};

inline std::string gzip(std::string_view text) {
  Gzipper g;
  std::string out = g.add(text);  // before end(): the order of a + b's operands is unspecified
  return out + g.end();
}

inline Url url(std::string_view text) { return *Url::parse(text); }

// The protocol's scope of a sitemap at `location`.
inline SitemapScope scope_of(std::string_view location) { return SitemapScope::of_location(url(location)); }

// A <urlset> of `body` in the sitemaps.org namespace.
inline std::string urlset(const std::string& body, const std::string& extra_ns = "") {
  return std::string("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"") + kSitemapNs + "\"" + extra_ns +
         ">\n" + body + "</urlset>\n";
}

inline std::string sitemapindex(const std::string& body) {
  return std::string("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"") + kSitemapNs + "\">\n" +
         body + "</sitemapindex>\n";
}

inline std::string url_entry(const std::string& loc, const std::string& more = "") {
  return "<url><loc>" + loc + "</loc>" + more + "</url>\n";
}

struct Parsed {
  std::vector<SitemapEntry> entries;
  SitemapReport report;
  std::size_t max_retained = 0;

  std::vector<std::string> urls() const {
    std::vector<std::string> out;
    for (const auto& e : entries) out.push_back(e.url);
    return out;
  }
};

// Parses `body` fed in chunks of `chunk` bytes (0: one feed).
inline Parsed parse(const std::string& body, const SitemapScope& scope, std::size_t chunk = 0,
                    SitemapParser::Options options = {}) {
  SitemapParser parser(scope, options);
  Parsed out;
  const std::size_t step = chunk == 0 ? std::max<std::size_t>(body.size(), 1) : chunk;
  for (std::size_t at = 0; at < body.size(); at += step) {
    parser.feed(std::string_view(body).substr(at, step));
    out.max_retained = std::max(out.max_retained, parser.retained_bytes());
    for (auto& e : parser.take_entries()) out.entries.push_back(std::move(e));
  }
  parser.finish();
  for (auto& e : parser.take_entries()) out.entries.push_back(std::move(e));
  out.report = parser.report();
  return out;
}

inline Parsed parse(const std::string& body, std::string_view location = "https://example.com/sitemap.xml",
                    std::size_t chunk = 0) {
  return parse(body, scope_of(location), chunk);
}

}  // namespace actorcrawl::testing
