// The test webs through both HTML parsers: every HTML page of the demo web
// and of the fault web's content pages (bad charsets, link floods,
// pathological nesting), fetched over loopback as a crawl would get them and
// converted to UTF-8 as the page processor does, must give the same links,
// title, description and directives with the fast parser as with gumbo
// (tests/unit/web/html_comparison.h says what "the same" means).
#include <catch2/catch.hpp>
#include <httplib.h>

#include <deque>
#include <set>
#include <string>
#include <vector>

#include "core/web/charset.h"
#include "core/web/html_document.h"
#include "tests/unit/web/html_comparison.h"
#include "testweb/fault_web.h"
#include "demoweb/demo_web.h"

namespace actorcrawl {
namespace {

struct Fetched {
  int status = 0;
  std::string content_type;
  std::string body;
};

// GET http://host_key/path (no redirects followed).
Fetched get(const std::string& host_key, const std::string& path) {
  httplib::Client client("http://" + host_key);
  client.set_connection_timeout(2, 0);
  client.set_read_timeout(10, 0);
  Fetched out;
  if (auto res = client.Get(path)) {
    out.status = res->status;
    out.content_type = res->get_header_value("Content-Type");
    out.body = res->body;
  }
  return out;
}

// What the page processor parses: the body in UTF-8, by its declared or
// sniffed charset.
std::string page_text(const Fetched& page) {
  std::string header_charset;
  const auto at = page.content_type.find("charset=");
  if (at != std::string::npos) header_charset = page.content_type.substr(at + 8);
  const std::string charset = sniff_charset(page.body, header_charset);
  if (charset == "utf-8" && is_valid_utf8(page.body)) return page.body;
  return to_utf8(page.body, charset);
}

// Compares the parsers on one page; returns its links (as fast read them).
std::vector<HtmlLink> check(const std::string& name, const std::string& html) {
  INFO(name);
  // No page here falls under an accepted divergence but the foreign
  // nesting page (an <svg> left open to the end: foreign-unmatched-end-tag),
  // and the parsers agree on that one too.
  const std::string rule = testing::accepted_divergence(html);
  CHECK((rule == "" || name == "foreign_nesting"));
  const HtmlDocument fast = parse_html_fast(html);
  CHECK(testing::compare_parsers(fast, parse_html_html5(html), html) == "");
  return fast.links;
}

}  // namespace

TEST_CASE("html parsers agree: the demo web", "[html][differential]") {
  const auto demo = demoweb::start_demo_web();
  // Every HTML page reachable from the seed on the demo hosts.
  std::deque<std::string> queue{demo.seed_url};
  std::set<std::string> seen{demo.seed_url};
  int compared = 0;
  while (!queue.empty()) {
    const std::string url = queue.front();
    queue.pop_front();
    const std::string rest = url.substr(url.find("://") + 3);
    const std::string host_key = rest.substr(0, rest.find('/'));
    const std::string path = rest.find('/') == std::string::npos ? "/" : rest.substr(rest.find('/'));
    const Fetched page = get(host_key, path);
    if (page.status != 200 || page.content_type.find("text/html") == std::string::npos) continue;
    ++compared;
    for (const auto& link : check(url, page_text(page))) {
      // Absolute links to the demo hosts and paths on this host.
      std::string next;
      if (link.href.rfind("http://", 0) == 0) {
        next = link.href;
      } else if (!link.href.empty() && link.href[0] == '/') {
        next = "http://" + host_key + link.href;
      }
      const std::string next_rest = next.empty() ? "" : next.substr(7);
      const std::string next_key = next_rest.substr(0, next_rest.find('/'));
      bool on_demo = false;
      for (const auto& key : demo.host_keys) on_demo = on_demo || key == next_key;
      if (on_demo && seen.insert(next).second) queue.push_back(next);
    }
  }
  CHECK(compared >= 6);
}

TEST_CASE("html parsers agree: the fault web's hostile pages", "[html][differential]") {
  testweb::FaultWebOptions options;
  options.tls = false;
  options.many_links = 5000;
  options.nesting_depth = 20000;
  options.bomb_decoded_bytes = 1ULL << 20;
  testweb::FaultWeb web(options);
  const std::string index_key = web.host_key(testweb::FaultHost::index);
  const Fetched index = get(index_key, "/");
  REQUIRE(index.status == 200);
  check("the index", page_text(index));
  int compared = 0;
  for (const testweb::Fault fault :
       {testweb::Fault::invalid_utf8, testweb::Fault::invalid_shift_jis, testweb::Fault::charset_mismatch,
        testweb::Fault::unknown_charset, testweb::Fault::many_links, testweb::Fault::deep_nesting,
        testweb::Fault::foreign_nesting}) {
    const auto& page = testweb::fault_page(fault);
    const Fetched fetched = get(web.host_key(page.host), page.path);
    REQUIRE(fetched.status == 200);
    const auto links = check(page.name, page_text(fetched));
    ++compared;
    if (fault == testweb::Fault::many_links) CHECK(links.size() >= 5000);
  }
  CHECK(compared == 7);
}

}  // namespace actorcrawl
