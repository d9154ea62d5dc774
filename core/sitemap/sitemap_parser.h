// One sitemap document (sitemaps.org protocol 0.9), parsed as its bytes
// arrive: a 50 MB, 50,000-URL file costs a few hundred kilobytes whatever
// its size, beyond the entries handed out and not yet taken.
//
// Formats, told apart by the bytes, never by a name or Content-Type:
//   - gzip (magic 1f 8b) of any of the others, inflated as it streams in,
//     at most kMaxBytes out (a gzip bomb stops there: gzip_bomb);
//   - XML (the first byte after a BOM and whitespace is '<'): <urlset>
//     (entries: <url> with <loc>, <lastmod>, <changefreq>, <priority>) or
//     <sitemapindex> (entries: <sitemap> with <loc>, <lastmod>), in the
//     sitemaps.org namespace, Google's older 0.84 one, or none; elements of
//     any other namespace (image:, video:, news:, xhtml: extensions) and
//     unknown ones are skipped without being stored;
//   - plain text: one URL per line, UTF-8.
//
// XML is read by libxml2's SAX2 push parser, as hostile input: no network,
// no DTD loading, no entity expansion (a DTD that declares an entity ends
// the document: sitemap_entities; one that declares elements, attributes
// or notations: sitemap_dtd), nesting and markup limits
// (xml_markup_guard.h), and the parser's own limits kept (no
// XML_PARSE_HUGE). Character references and the five predefined entities
// (&amp; in a <loc>) and CDATA sections are decoded as XML says.
//
// Entries: each is checked (absolute http(s), at most kMaxUrlLength
// characters, in the caller's SitemapScope, the first kMaxEntries of the
// document) and normalized (Url::parse) before it is handed out; one that
// fails is counted under its SitemapDrop and dropped. A <lastmod> is read
// as a W3C datetime (w3c_datetime.h); one that is absent or unreadable
// leaves the entry without a date and is counted.
//
// Errors: the first error ends the document with a named reason
// (SitemapError). Entries complete before it (their </url> or end of line
// read) have been or will be handed out: a late error loses nothing that
// was valid, so a truncated download still yields the URLs it holds. The
// entry being read when the error came is not handed out.
//
// Use: construct with the scope, feed() each chunk as it arrives,
// take_entries() after each feed (or set on_entry() once), finish() at the
// end of the body, take_entries() once more, then report(). A parser is for
// one document; it is movable, not copyable, and used by one thread at a
// time (different parsers may run on different threads at once).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/sitemap/sitemap_scope.h"

namespace actorcrawl {

// What the document turned out to be (unknown until its first bytes, and
// after a refusal before its root element).
enum class SitemapKind { unknown, urlset, index, text };
const char* to_string(SitemapKind kind);  // "unknown", "urlset", "index", "text"

// Why a document was not read to its end. Stable names (to_string), for
// metrics.log and the trace.
enum class SitemapError {
  none,
  too_large,         // "sitemap_too_large": an uncompressed body past kMaxBytes
  gzip_bomb,         // "gzip_bomb": gzip that inflates past kMaxBytes
  gzip_corrupt,      // "gzip_corrupt": damaged deflate data, header or checksum
  gzip_truncated,    // "gzip_truncated": the body ended inside a gzip member
  not_sitemap,       // "sitemap_not_sitemap": XML whose root is not <urlset> or
                     //   <sitemapindex> (an HTML page, a feed), XML that fails
                     //   before its root element, or binary data (a NUL byte)
  malformed,         // "sitemap_malformed": XML that is not well-formed after
                     //   its root element (or ends early)
  entities,          // "sitemap_entities": a DTD declares an entity
  dtd,               // "sitemap_dtd": a DTD declares an element, attribute list
                     //   or notation
  nesting,           // "sitemap_nesting": elements nested past kMaxNesting
  markup_too_large,  // "sitemap_markup_too_large": a tag, comment, processing
                     //   instruction, CDATA section or DOCTYPE past 64 KiB, or a
                     //   tag with more than 64 attributes (xml_markup_guard.h)
  too_complex,       // "sitemap_too_complex": more than kMaxNames distinct
                     //   element and attribute names, or more than
                     //   kMaxNamespacesInScope namespace declarations in scope
};
const char* to_string(SitemapError error);

// One <url> of a urlset, one <sitemap> of an index, or one line of a text
// sitemap; only ever handed out once it passed every check.
struct SitemapEntry {
  std::string url;                         // normalized (Url::str())
  std::optional<std::int64_t> lastmod_ms;  // Unix epoch ms, UTC
  std::string changefreq;                  // one of the protocol's seven words, lowercased, or ""
  std::optional<double> priority;          // 0.0 to 1.0, when given and valid

  friend bool operator==(const SitemapEntry& a, const SitemapEntry& b) {
    return a.url == b.url && a.lastmod_ms == b.lastmod_ms && a.changefreq == b.changefreq && a.priority == b.priority;
  }
};

// What a document gave, for reporting.
struct SitemapCounts {
  std::uint64_t urls_found = 0;     // entries read (<url>/<sitemap> elements, non-empty lines)
  std::uint64_t urls_accepted = 0;  // entries handed out
  std::array<std::uint64_t, kSitemapDropCount> dropped{};  // by SitemapDrop
  std::uint64_t lastmod_missing = 0;  // accepted XML entries without <lastmod>
  std::uint64_t lastmod_invalid = 0;  // accepted entries whose <lastmod> could not be read

  std::uint64_t dropped_for(SitemapDrop drop) const { return dropped[static_cast<int>(drop)]; }
  std::uint64_t dropped_total() const;
};

// A document's outcome as a plain value (for a message, a log line).
struct SitemapReport {
  SitemapKind kind = SitemapKind::unknown;
  SitemapError error = SitemapError::none;
  std::string error_detail;          // libxml2's or zlib's words, when it said any
  bool gzipped = false;
  std::uint64_t bytes_in = 0;        // bytes fed
  std::uint64_t bytes_decoded = 0;   // bytes after gzip (= bytes_in when not gzipped)
  SitemapCounts counts;
};

class SitemapParser {
 public:
  // The protocol's limits (sitemaps.org, "Sitemap file format").
  static constexpr std::uint64_t kMaxBytes = 52'428'800;  // 50 MiB, uncompressed
  static constexpr std::size_t kMaxEntries = 50'000;
  static constexpr std::size_t kMaxUrlLength = 2'048;
  // Limits of this parser, far above any sitemap's shape.
  static constexpr std::size_t kMaxNesting = 64;
  static constexpr std::size_t kMaxNames = 4'096;
  static constexpr std::size_t kMaxNamespacesInScope = 128;

  struct Options {
    std::uint64_t max_bytes = kMaxBytes;
    std::size_t max_entries = kMaxEntries;
    // XML is handed to libxml2 in pieces of at least this many bytes
    // (less only at the end): each piece costs libxml2 a look back over
    // the markup it holds, so tiny pieces would cost more than the bytes.
    // Tests set 1 to give libxml2 every split point.
    std::size_t xml_push_bytes = 16 * 1024;
  };

  explicit SitemapParser(SitemapScope scope);
  SitemapParser(SitemapScope scope, Options options);
  ~SitemapParser();
  SitemapParser(SitemapParser&&) noexcept;
  SitemapParser& operator=(SitemapParser&&) noexcept;

  // The next bytes of the body, as fetched (compressed or not). Does
  // nothing once the document has failed or finished.
  void feed(std::string_view bytes);
  // The end of the body.
  void finish();

  // Entries accepted since the last call, in document order.
  std::vector<SitemapEntry> take_entries();

  // From now on, each accepted entry goes to `sink` the moment it is read,
  // instead of waiting for take_entries(): a gzip chunk of a few kilobytes
  // can inflate to thousands of entries, which would otherwise be held
  // until feed() returns. The sink runs inside feed() or finish() and must
  // not call back into this parser.
  void on_entry(std::function<void(SitemapEntry&&)> sink);

  // Failed or finished: feeding more does nothing.
  bool done() const;
  SitemapKind kind() const;
  SitemapError error() const;
  const SitemapCounts& counts() const;
  SitemapReport report() const;

  // Bytes this parser holds now: its buffers, libxml2's input buffer and
  // the gzip state, plus the entries not yet taken. Without those entries,
  // bounded by the limits above (a few hundred kilobytes) whatever the
  // size of the document or of one feed; the entries one feed yields are
  // bounded by kMaxEntries, or by nothing held at all with on_entry().
  std::size_t retained_bytes() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
