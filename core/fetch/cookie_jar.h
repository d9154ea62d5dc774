// One crawl's cookies, kept as a browser keeps them: libcurl's cookie
// engine (RFC 6265: Domain and Path scope, host-only cookies, Secure,
// expiry, a later Set-Cookie replacing an earlier one), shared by every
// FetchEngine of the process through one curl share handle. A cookie one
// worker's response sets goes with the next request to that host,
// whichever worker makes it: a consent page, a login, a session.
//
// Cookies are the site's secrets for the crawl's session: they are sent
// only where their scope says, never written to the log, the trace or an
// export (a WARC request record shows "Cookie: [redacted]"), and kept
// between runs in the crawl database only (its cookies table).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl {

class CookieJar {
 public:
  CookieJar();
  ~CookieJar();
  CookieJar(const CookieJar&) = delete;
  CookieJar& operator=(const CookieJar&) = delete;

  // A Netscape cookies.txt line's problem, or "" when it is one: seven
  // tab-separated fields (domain, include-subdomains TRUE/FALSE, path,
  // secure TRUE/FALSE, expiry in Unix seconds, name, value). A "#HttpOnly_"
  // prefix on the domain is part of the format; other '#' lines and blank
  // lines are comments.
  static std::string line_problem(std::string_view line);

  // Adds the cookies of a cookies.txt (what curl -c, wget
  // --save-cookies and browser extensions write). Throws
  // std::invalid_argument naming the first line that is not one (its
  // number and problem, never its value), before any is added.
  void load_text(std::string_view netscape_text);
  // Adds cookies as lines() gave them. Lines that are not cookie lines are
  // skipped (a damaged row costs its cookie, nothing else).
  void load_lines(const std::vector<std::string>& lines);

  // Every cookie not expired, as Netscape lines (session cookies too: a
  // run that goes on where another stopped is the same session).
  std::vector<std::string> lines() const;

  // The curl share handle (a CURLSH*) every transfer of the crawl uses.
  void* share_handle() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
