// A deterministic corpus for the micro-benchmarks: realistic HTML pages,
// URL lists and robots.txt bodies, generated in code from a fixed seed so
// every run (and every machine) measures the same input. Nothing is read
// from disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

// A small, portable PRNG (splitmix64). The standard distributions are
// implementation-defined, so the corpus uses only this and plain modulo.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for corpus generation.
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

constexpr std::uint64_t kSeed = 20240517;

struct Page {
  std::string url;   // where the page was fetched from (normalized)
  std::string body;  // the HTML
};

enum class Encoding { utf8, windows1252 };

// `count` pages of about `target_bytes` each. Every page has a head (title,
// meta description, canonical, stylesheet, inline script), a navigation bar,
// an article of paragraphs with inline markup, a related-links aside and a
// footer: 30 <a> elements in all, 27 of them fetchable (three are "#top",
// "javascript:" and "mailto:"), in the mix of forms real pages use (relative,
// root-relative, dot segments, protocol-relative, absolute to other hosts,
// tracking parameters, entities, percent-encoding, rel=nofollow).
// With Encoding::windows1252 the accented letters are single bytes and the
// page declares that charset.
std::vector<Page> make_pages(std::size_t count, std::size_t target_bytes = 16 * 1024,
                             Encoding encoding = Encoding::utf8, std::uint64_t seed = kSeed);

// The shared 64-page corpus (UTF-8), built on first use.
const std::vector<Page>& pages();
std::size_t total_bytes(const std::vector<Page>& pages);

// Absolute URLs as a crawler meets them in seeds, sitemaps and redirects:
// mixed case hosts, default ports, dot segments, percent-encoding in both
// cases, raw spaces and non-ASCII, tracking parameters, fragments, IPv4 and
// explicit ports. Deterministic; cycles through templates.
std::vector<std::string> make_absolute_urls(std::size_t count, std::uint64_t seed = kSeed);

// Hrefs as written in pages (relative and absolute), for Url::resolve.
std::vector<std::string> make_hrefs(std::size_t count, std::uint64_t seed = kSeed);

// A robots.txt body in the style of large real sites: comments, several
// user-agent groups (specific bots, then "*"), Allow/Disallow with and
// without wildcards and '$', Crawl-delay, Sitemap lines. `extra_rules`
// generated Disallow lines are added to the "*" group (a large site lists
// hundreds).
std::string make_robots_txt(std::size_t extra_rules, std::uint64_t seed = kSeed);

// Path-and-query strings as HostScheduler passes them to allowed().
std::vector<std::string> make_robots_paths(std::size_t count, std::uint64_t seed = kSeed);

}  // namespace bench
