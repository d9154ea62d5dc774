#include "core/frontier/trap_guard.h"

#include <algorithm>

#include "core/web/url_fingerprint.h"

namespace actorcrawl {
namespace {

// The largest number of times one path segment occurs in `path`.
std::size_t max_segment_repeats(std::string_view path) {
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  std::vector<std::string_view> segments;
  for (;;) {
    const std::size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  // A trailing slash leaves one empty segment that is not a repetition.
  if (segments.size() > 1 && segments.back().empty()) segments.pop_back();
  std::sort(segments.begin(), segments.end());
  std::size_t best = 0;
  for (std::size_t i = 0; i < segments.size();) {
    std::size_t j = i + 1;
    while (j < segments.size() && segments[j] == segments[i]) ++j;
    best = std::max(best, j - i);
    i = j;
  }
  return best;
}

// A normalized URL's text splits at its first '?' into scheme+authority+path
// and query: the fragment is already gone, and '?' cannot occur unencoded
// before the query. Cheaper than asking Url, which reparses.
struct Parts {
  std::string_view prefix;  // scheme://authority/path
  std::string_view path;
  std::string_view query;
  bool has_query;
};

Parts split(const std::string& text) {
  Parts p;
  const std::string_view s = text;
  const std::size_t q = s.find('?');
  p.prefix = s.substr(0, q);
  p.has_query = q != std::string_view::npos;
  p.query = p.has_query ? s.substr(q + 1) : std::string_view();
  const std::size_t authority = p.prefix.find("://");
  const std::size_t slash =
      p.prefix.find('/', authority == std::string_view::npos ? 0 : authority + 3);
  p.path = slash == std::string_view::npos ? std::string_view("/") : p.prefix.substr(slash);
  return p;
}

}  // namespace

TrapGuard::TrapGuard(Limits limits) : limits_(limits) {}

std::optional<std::string> TrapGuard::admit(const Url& url) {
  const std::string& text = url.str();
  if (limits_.max_url_length != 0 && text.size() > limits_.max_url_length) {
    return "max_url_length";
  }
  const Parts parts = split(text);
  if (limits_.max_repeated_path_segments != 0 &&
      max_segment_repeats(parts.path) > limits_.max_repeated_path_segments) {
    return "max_repeated_path_segments";
  }
  std::string host;
  if (limits_.max_pages_per_host != 0) {
    host = url.host_key();
    const auto it = pages_per_host_.find(host);
    if (it != pages_per_host_.end() && it->second >= limits_.max_pages_per_host) {
      return "max_pages_per_host";
    }
  }
  if (limits_.max_query_variants_per_path != 0 && parts.has_query &&
      !add_query(parts.prefix, parts.query, true)) {
    return "max_query_variants_per_path";
  }
  // Counted only now that every rule has passed: refusals leave no trace.
  if (limits_.max_pages_per_host != 0) ++pages_per_host_[host];
  return std::nullopt;
}

void TrapGuard::remember(const Url& url) {
  if (limits_.max_pages_per_host != 0) ++pages_per_host_[url.host_key()];
  if (limits_.max_query_variants_per_path != 0) {
    const Parts parts = split(url.str());
    if (parts.has_query) add_query(parts.prefix, parts.query, false);
  }
}

bool TrapGuard::add_query(std::string_view path_prefix, std::string_view query, bool enforce) {
  QueryVariants& v = queries_per_path_[url_fingerprint(path_prefix)];
  if (v.saturated) return !enforce;
  const std::uint64_t h = url_fingerprint(query);
  const auto pos = std::lower_bound(v.hashes.begin(), v.hashes.end(), h);
  if (pos != v.hashes.end() && *pos == h) return true;
  // An unsaturated path holds fewer hashes than the limit: there is room.
  v.hashes.insert(pos, h);
  if (v.hashes.size() >= limits_.max_query_variants_per_path) {
    v.saturated = true;
    std::vector<std::uint64_t>().swap(v.hashes);  // clear() would keep the capacity
  }
  return true;
}

}  // namespace actorcrawl
