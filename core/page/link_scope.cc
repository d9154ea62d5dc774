#include "core/page/link_scope.h"

#include "core/web/ascii.h"
#include "core/web/url_host.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "core/web/registrable_domain.h"

namespace actorcrawl {

namespace {

// One allowed_domains entry: a host admitting itself and its subdomains,
// optionally on one port only.
struct AllowedDomain {
  std::string host;
  std::optional<std::uint16_t> port;
};

using ascii::lowercase;

std::optional<std::uint16_t> parse_port(std::string_view digits) {
  if (digits.empty() || digits.size() > 5) return std::nullopt;
  unsigned value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value == 0 || value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

// Accepts "host", "host:port", "[v6]", "[v6]:port" and a bare IPv6 address
// (more than one ':' and no brackets). Hosts are kept the way Url::host()
// spells them: lowercased, IPv6 without brackets.
std::optional<AllowedDomain> parse_allowed_domain(std::string_view entry) {
  const std::string text = lowercase(entry);
  std::string_view host = text;
  std::string_view port;
  if (!host.empty() && host.front() == '[') {
    const std::size_t close = host.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view after = host.substr(close + 1);
    host = host.substr(1, close - 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
      if (port.empty()) return std::nullopt;
    }
  } else if (host.find(':') == host.rfind(':') && host.find(':') != std::string_view::npos) {
    const std::size_t colon = host.find(':');
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
    if (port.empty()) return std::nullopt;
  }
  if (host.empty()) return std::nullopt;
  // A name or IPv4 address is spelled as URLs spell it once parsed: an
  // internationalized name in punycode, "0x7f.1" as 127.0.0.1.
  std::string canonical(host);
  if (text.front() != '[' && host.find(':') == std::string_view::npos) {
    const auto parsed = parse_url_host(host);
    if (!parsed) return std::nullopt;
    canonical = *parsed;
  }
  AllowedDomain domain{std::move(canonical), std::nullopt};
  if (!port.empty()) {
    domain.port = parse_port(port);
    if (!domain.port) return std::nullopt;
  }
  return domain;
}

}  // namespace

const char* to_string(ScopeVerdict v) {
  switch (v) {
    case ScopeVerdict::in_scope: return "in_scope";
    case ScopeVerdict::out_of_domain: return "out_of_domain";
    case ScopeVerdict::excluded: return "excluded";
    case ScopeVerdict::not_followed: return "not_followed";
  }
  return "out_of_domain";
}

struct LinkScope::Impl {
  // Empty with `any_domain`: no domain is checked.
  std::vector<AllowedDomain> domains;
  // The same, by name (views of `domains`, made once it is complete): a
  // host is within a domain when the domain is the host or follows one of
  // its dots, so a link looks up the host and each such suffix, whatever
  // the number of allowed domains.
  std::unordered_map<std::string_view, std::vector<std::optional<std::uint16_t>>> ports_by_domain;
  bool any_domain = false;
  // scope `host`: the seeds' hosts, matched exactly.
  std::vector<std::string> seed_hosts;
  std::vector<std::unique_ptr<RE2>> excludes;
  std::vector<std::unique_ptr<RE2>> follows;  // empty: every link

  bool domain_allows(const Url& url) const {
    const std::string host = url.host();
    if (!seed_hosts.empty() &&
        std::find(seed_hosts.begin(), seed_hosts.end(), host) == seed_hosts.end())
      return false;
    if (any_domain) return true;
    for (std::string_view rest = host;;) {
      if (const auto found = ports_by_domain.find(rest); found != ports_by_domain.end()) {
        for (const auto& port : found->second)
          if (!port || *port == url.port()) return true;
      }
      const std::size_t dot = rest.find('.');
      if (dot == std::string_view::npos) return false;
      rest.remove_prefix(dot + 1);
    }
  }

  bool excluded(const Url& url) const {
    for (const auto& re : excludes) {
      if (RE2::PartialMatch(url.str(), *re)) return true;
    }
    return false;
  }

  bool followed(const Url& url) const {
    if (follows.empty()) return true;
    for (const auto& re : follows) {
      if (RE2::PartialMatch(url.str(), *re)) return true;
    }
    return false;
  }
};

LinkScope::LinkScope() : impl_(std::make_unique<Impl>()) {}
LinkScope::~LinkScope() = default;

std::unique_ptr<LinkScope> LinkScope::make(CrawlScope mode, const std::vector<std::string>& allowed_domains,
                                           const std::vector<std::string>& exclude_patterns,
                                           const std::vector<Url>& seeds,
                                           std::string* error,
                                           const std::vector<std::string>& follow_patterns) {
  std::unique_ptr<LinkScope> scope(new LinkScope());
  Impl& impl = *scope->impl_;

  for (const std::string& entry : allowed_domains) {
    std::optional<AllowedDomain> domain = parse_allowed_domain(entry);
    if (!domain) {
      if (error != nullptr) *error = "allowed_domains: invalid entry '" + entry + "'";
      return nullptr;
    }
    impl.domains.push_back(std::move(*domain));
  }
  if (mode == CrawlScope::host) {
    for (const Url& seed : seeds) impl.seed_hosts.push_back(seed.host());
    // No seed would admit every host: a scope of nothing stays nothing.
    if (seeds.empty()) impl.seed_hosts.push_back(std::string());
  }
  if (allowed_domains.empty()) {
    if (mode == CrawlScope::domain) {
      for (const Url& seed : seeds)
        impl.domains.push_back(AllowedDomain{registrable_domain(seed.host()), std::nullopt});
    } else {
      impl.any_domain = true;
    }
  }
  for (const AllowedDomain& d : impl.domains)
    impl.ports_by_domain[d.host].push_back(d.port);

  RE2::Options options;
  // A bad pattern is reported to the caller; RE2 would also print it.
  options.set_log_errors(false);
  // A bad pattern names its key and itself.
  auto compile = [&](const std::vector<std::string>& patterns, const char* key,
                     std::vector<std::unique_ptr<RE2>>& into) {
    for (const std::string& pattern : patterns) {
      auto re = std::make_unique<RE2>(pattern, options);
      if (!re->ok()) {
        if (error != nullptr)
          *error = std::string{key} + ": invalid regular expression '" + pattern + "': " + re->error();
        return false;
      }
      into.push_back(std::move(re));
    }
    return true;
  };
  if (!compile(exclude_patterns, "exclude_patterns", impl.excludes) ||
      !compile(follow_patterns, "follow_patterns", impl.follows))
    return nullptr;
  return scope;
}

// The domain is checked first: a link that leaves the site is reported as
// such even when an exclude pattern would also match it.
ScopeVerdict LinkScope::check(const Url& url) const {
  if (!impl_->domain_allows(url)) return ScopeVerdict::out_of_domain;
  if (impl_->excluded(url)) return ScopeVerdict::excluded;
  if (!impl_->followed(url)) return ScopeVerdict::not_followed;
  return ScopeVerdict::in_scope;
}

}  // namespace actorcrawl
