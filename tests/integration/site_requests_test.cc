// Requests the site requires, in a whole crawl of the binary: extra headers
// and Basic credentials chosen by host, every request through a proxy, and
// links chosen by follow_patterns. The servers' own records are the judge:
// the pages that refuse a request without them answer 200 to every one,
// another host never sees them, and the proxy carried everything. No secret
// appears in the log, the database, its export, the trace or metrics.log.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include "binary_run.h"
#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;
using demoweb::Response;
using demoweb::ServedRequest;

namespace {

constexpr const char* kHeaderSecret = "k-HEADER-SECRET-7f3a";
constexpr const char* kPassword = "pw-AUTH-SECRET-91c2";

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The members' site on 127.0.0.1: every page needs the API key, the
// members' pages also the password (401 otherwise, as such sites answer);
// it links another host on 127.0.0.2, which must see neither.
struct MembersWeb {
  LoopbackWeb web;
  std::string site = web.add_host("127.0.0.1");
  std::string other = web.add_host("127.0.0.2");
  std::string proxy = web.add_proxy("127.0.0.3");

  static bool keyed(const ServedRequest& r) { return r.header("X-Api-Key") == kHeaderSecret; }

  MembersWeb() {
    const auto guarded = [](std::string body, bool members) {
      return [body = std::move(body), members](const ServedRequest& r) {
        // "member:pw-AUTH-SECRET-91c2", base64.
        const bool signed_in = r.header("Authorization") == "Basic bWVtYmVyOnB3LUFVVEgtU0VDUkVULTkxYzI=";
        if (!keyed(r) || (members && !signed_in)) {
          Response denied = html("<html><body>denied</body></html>", keyed(r) ? 401 : 403);
          return denied;
        }
        return html(body);
      };
    };
    web.route(site, "/robots.txt", [](const ServedRequest& r) {
      return keyed(r) ? typed("User-agent: *\nDisallow:\n", "text/plain") : html("denied", 403);
    });
    web.route(site, "/", guarded(page("Home", {"/members/a", "/news/1", "/about", LoopbackWeb::url(other, "/")}), false));
    web.route(site, "/members/a", guarded(page("Member A", {"/members/b"}), true));
    web.route(site, "/members/b", guarded(page("Member B", {}), true));
    web.route(site, "/news/1", guarded(page("News 1", {"/news/2"}), false));
    web.route(site, "/news/2", guarded(page("News 2", {}), false));
    web.route(site, "/about", guarded(page("About", {}), false));
    web.route(other, "/robots.txt", typed("User-agent: *\nDisallow:\n", "text/plain"));
    web.route(other, "/", html(page("Other", {"/members/x"})));
    web.route(other, "/members/x", html(page("Other X", {})));
  }
};

std::string config_file(const ScratchDir& dir, const MembersWeb& w, const std::string& more) {
  const std::string path = dir.path("crawl.yaml");
  std::ofstream(path) << "seeds: ['" << LoopbackWeb::url(w.site, "/") << "']\n"
                      << "allowed_domains: ['127.0.0.1', '127.0.0.2']\n"
                         "politeness_delay_ms: 0\n"
                         "retry_delay_ms: 20\n"
                         "retry_attempts: 1\n"
                         "request_timeout_ms: 2000\n"
                         "sitemaps: false\n"
                         "allow_private_networks: true\n"
                         "headers:\n"
                         "  - 'Accept-Language: de'\n"
                         "  - {hosts: '^127\\.0\\.0\\.1$', X-Api-Key: '"
                      << kHeaderSecret
                      << "'}\n"
                         "auth:\n"
                         "  - {hosts: '^127\\.0\\.0\\.1$', basic: 'member:"
                      << kPassword << "'}\n"
                      << more;
  return path;
}

}  // namespace

TEST_CASE("site requests: headers and credentials by host, through a proxy, and no secret written anywhere",
          "[site_requests]") {
  ScratchDir dir;
  MembersWeb w;
  const std::string config = config_file(dir, w, "proxy: 'http://" + w.proxy + "'\n");
  const Outcome crawled =
    run("crawl --config " + config + " --db " + dir.path("crawl.db") + " --metrics " + dir.path("metrics.log") +
        " --trace " + dir.path("trace.jsonl"));
  INFO(crawled.output);
  REQUIRE(crawled.exit_code == 0);

  // Every page of the site answered 200: its key and password went along.
  const std::string db = dir.path("crawl.db");
  CHECK(count(db, "SELECT count(*) FROM pages WHERE status_code = 200") == 8);
  CHECK(count(db, "SELECT count(*) FROM pages WHERE status_code <> 200") == 0);
  for (const auto& r : w.web.requests()) {
    INFO(r.host_key << r.target);
    // Through the proxy, every one (robots.txt too); the language to all.
    CHECK(r.via_proxy == w.proxy);
    CHECK(r.header("Accept-Language") == "de");
    if (r.host_key == w.other) {
      CHECK(r.header("X-Api-Key").empty());
      CHECK(r.header("Authorization").empty());
    } else {
      CHECK(r.header("X-Api-Key") == kHeaderSecret);
    }
  }
  CHECK(w.web.count(w.other, "/members/x") == 1);

  // The secrets are nowhere the crawl writes or says.
  const Outcome exported = run("export --db " + db + " --format jsonl");
  REQUIRE(exported.exit_code == 0);
  const Outcome graph = run("export --db " + db + " --format graphml");
  for (const std::string& secret : {std::string{kHeaderSecret}, std::string{kPassword}}) {
    INFO(secret);
    CHECK_FALSE(contains(crawled.output, secret));
    CHECK_FALSE(contains(file_text(db), secret));
    CHECK_FALSE(contains(file_text(db + "-wal"), secret));
    CHECK_FALSE(contains(exported.output, secret));
    CHECK_FALSE(contains(graph.output, secret));
    CHECK_FALSE(contains(file_text(dir.path("trace.jsonl")), secret));
    CHECK_FALSE(contains(file_text(dir.path("metrics.log")), secret));
  }
  CHECK_FALSE(file_text(dir.path("trace.jsonl")).empty());
}

TEST_CASE("site requests: without them the site refuses, and the crawl says so", "[site_requests]") {
  ScratchDir dir;
  MembersWeb w;
  const std::string seed = LoopbackWeb::url(w.site, "/");
  const Outcome crawled = run("crawl --seed " + seed + " --allowed-domains 127.0.0.1 --politeness-delay 0 "
                              "--no-sitemaps --allow-private-networks --retry-attempts 1 --db " +
                              dir.path("crawl.db") + " --metrics " + dir.path("metrics.log"));
  INFO(crawled.output);
  REQUIRE(crawled.exit_code == 0);
  CHECK(count(dir.path("crawl.db"), "SELECT count(*) FROM pages WHERE status_code = 200") == 0);
  // Straight to the site: no proxy unless configured.
  for (const auto& r : w.web.requests())
    CHECK(r.via_proxy.empty());
}

TEST_CASE("site requests: follow_patterns choose the links, the seed is fetched whatever it matches",
          "[site_requests]") {
  ScratchDir dir;
  MembersWeb w;
  const std::string config = config_file(dir, w, "follow_patterns: ['/news/']\n");
  const Outcome crawled = run("crawl --config " + config + " --db " + dir.path("crawl.db") + " --metrics " +
                              dir.path("metrics.log"));
  INFO(crawled.output);
  REQUIRE(crawled.exit_code == 0);
  CHECK(column(dir.path("crawl.db"), "SELECT url FROM pages ORDER BY url") ==
        std::vector<std::string>{LoopbackWeb::url(w.site, "/"), LoopbackWeb::url(w.site, "/news/1"),
                                 LoopbackWeb::url(w.site, "/news/2")});
  // The server's log: nothing else of either host was asked for.
  CHECK(w.web.count(w.site, "/members/a") == 0);
  CHECK(w.web.count(w.site, "/about") == 0);
  CHECK(w.web.count(w.other, "/") == 0);
}

TEST_CASE("site requests: a wrong entry is refused before the crawl, its value unsaid", "[site_requests]") {
  ScratchDir dir;
  const std::string path = dir.path("bad.yaml");
  std::ofstream(path) << "seeds: ['http://127.0.0.1:9/']\nauth:\n  - {basic: 'u:" << kPassword << "'}\n";
  const Outcome refused = run("crawl --config " + path + " --db " + dir.path("crawl.db"));
  CHECK(refused.exit_code == 2);
  CHECK(contains(refused.output, "auth: entry 1: 'hosts' is required"));
  CHECK_FALSE(contains(refused.output, kPassword));
  const Outcome proxy = run("crawl --seed http://127.0.0.1:9/ --proxy 'ftp://u:" + std::string{kPassword} +
                            "@127.0.0.1:1' --db " + dir.path("crawl.db"));
  CHECK(proxy.exit_code == 2);
  CHECK(contains(proxy.output, "proxy: not a proxy URL"));
  CHECK_FALSE(contains(proxy.output, kPassword));
}

// ---------------------------------------------------------------------------
// Cookies: a jar for the whole crawl, as a browser keeps one.

namespace {

constexpr const char* kConsent = "c-CONSENT-SECRET-55b1";
constexpr const char* kSession = "s-SESSION-SECRET-a7e0";

// The shop on 127.0.0.1: its front page sets a consent cookie and links
// the catalogue, which answers 403 without it; the members' page needs the
// session cookie of a cookies.txt the user exported. Another host on
// 127.0.0.2 is linked too: no cookie of the shop's may reach it.
struct CookieWeb {
  LoopbackWeb web;
  std::string site = web.add_host("127.0.0.1");
  std::string other = web.add_host("127.0.0.2");

  static bool has(const ServedRequest& r, const std::string& cookie) {
    return r.header("Cookie").find(cookie) != std::string::npos;
  }

  CookieWeb() {
    const auto gated = [](std::string body, std::string cookie) {
      return [body = std::move(body), cookie = std::move(cookie)](const ServedRequest& r) {
        return has(r, cookie) ? html(body) : html("<html><body>no cookie, no page</body></html>", 403);
      };
    };
    Response front = html(page("Shop", {"/catalogue", "/members", LoopbackWeb::url(other, "/")}));
    front.headers.emplace_back("Set-Cookie", std::string{"consent="} + kConsent + "; Path=/; HttpOnly");
    web.route(site, "/", front);
    web.route(site, "/catalogue", gated(page("Catalogue", {}), std::string{"consent="} + kConsent));
    web.route(site, "/members", gated(page("Members", {}), std::string{"session="} + kSession));
    web.route(site, "/later", [gated](const ServedRequest& r) {
      return has(r, std::string{"session="} + kSession) ? gated(page("Later", {}), std::string{"consent="} + kConsent)(r)
                                                        : html("no session", 403);
    });
    web.route(other, "/", html(page("Other", {})));
  }
};

}  // namespace

TEST_CASE("site requests: cookies a response set and cookies.txt's open the pages that need them, and stay secret",
          "[site_requests][cookies]") {
  ScratchDir dir;
  CookieWeb w;
  const std::string jar = dir.path("cookies.txt");
  std::ofstream(jar) << "# Netscape HTTP Cookie File\n"
                     << "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\t" << kSession << "\n";
  const std::string db = dir.path("crawl.db");
  const std::string trace = dir.path("trace.jsonl");
  const std::string common = " --allowed-domains 127.0.0.1 --allowed-domains 127.0.0.2 --politeness-delay 0 "
                             "--no-sitemaps --allow-private-networks --db " + db + " --metrics " +
                             dir.path("metrics.log") + " --trace " + trace;
  const Outcome crawled = run("crawl --seed " + LoopbackWeb::url(w.site, "/") + " --cookies-file " + jar + common);
  INFO(crawled.output);
  REQUIRE(crawled.exit_code == 0);
  CHECK(column(db, "SELECT url || ' ' || status_code FROM pages ORDER BY url") ==
        std::vector<std::string>{LoopbackWeb::url(w.site, "/") + " 200", LoopbackWeb::url(w.site, "/catalogue") + " 200",
                                 LoopbackWeb::url(w.site, "/members") + " 200", LoopbackWeb::url(w.other, "/") + " 200"});
  // Each cookie went only where its scope says: never to the other host.
  for (const auto& r : w.web.requests())
    if (r.host_key == w.other)
      CHECK(r.header("Cookie").empty());
  CHECK(count(db, std::string{"SELECT COUNT(*) FROM cookies WHERE line LIKE '%"} + kConsent + "%'") == 1);
  CHECK(count(db, std::string{"SELECT COUNT(*) FROM cookies WHERE line LIKE '%"} + kSession + "%'") == 1);

  // The next run goes on with the jar the database kept: no cookies.txt.
  w.web.clear_requests();
  const Outcome later = run("crawl --seed " + LoopbackWeb::url(w.site, "/later") + common);
  INFO(later.output);
  REQUIRE(later.exit_code == 0);
  CHECK(count(db, "SELECT status_code FROM pages WHERE url LIKE '%/later'") == 200);

  // Secrets: not in the log, the trace, metrics.log or any export.
  std::string written = crawled.output + later.output + file_text(trace) + file_text(dir.path("metrics.log"));
  for (const char* format : {"jsonl", "csv", "graphml", "items", "changes"})
    written += run("export --db " + db + " --format " + format).output;
  CHECK_FALSE(contains(written, kConsent));
  CHECK_FALSE(contains(written, kSession));

  // Off: none is sent or kept; a cookies.txt with it is a contradiction.
  ScratchDir off;
  const Outcome none = run("crawl --no-cookies --seed " + LoopbackWeb::url(w.site, "/") +
                           " --allowed-domains 127.0.0.1 --politeness-delay 0 --no-sitemaps --db " + off.path("c.db") +
                           " --metrics " + off.path("m.log"));
  REQUIRE(none.exit_code == 0);
  CHECK(count(off.path("c.db"), "SELECT status_code FROM pages WHERE url LIKE '%/catalogue'") == 403);
  CHECK(count(off.path("c.db"), "SELECT COUNT(*) FROM cookies") == 0);
  const Outcome both = run("crawl --no-cookies --cookies-file " + jar + " --seed " + LoopbackWeb::url(w.site, "/") +
                           " --db " + off.path("d.db"));
  CHECK(both.exit_code == 2);
  CHECK(contains(both.output, "cookies_file names cookies to send, and cookies is false"));
}

TEST_CASE("site requests: a cookies.txt line that is no cookie stops the crawl before it starts, its value unsaid",
          "[site_requests][cookies]") {
  ScratchDir dir;
  const std::string jar = dir.path("cookies.txt");
  std::ofstream(jar) << "# Netscape HTTP Cookie File\n127.0.0.1 FALSE / FALSE 0 session " << kSession << "\n";
  const Outcome refused = run("crawl --seed http://127.0.0.1:9/ --cookies-file " + jar + " --db " + dir.path("c.db"));
  CHECK(refused.exit_code == 2);
  CHECK(contains(refused.output, "cookies_file '" + jar + "': line 2 is not a cookie"));
  CHECK_FALSE(contains(refused.output, kSession));
  const Outcome missing = run("crawl --seed http://127.0.0.1:9/ --cookies-file " + dir.path("none.txt") + " --db " +
                              dir.path("c.db"));
  CHECK(missing.exit_code == 2);
  CHECK(contains(missing.output, "cookies_file '" + dir.path("none.txt") + "': cannot be read (No such file or directory)"));
  // A directory, and a file that never ends, are refused by name too.
  const Outcome directory =
    run("crawl --seed http://127.0.0.1:9/ --cookies-file " + dir.path("") + " --db " + dir.path("c.db"));
  CHECK(directory.exit_code == 2);
  CHECK(contains(directory.output, "is a directory, not a cookies.txt"));
  const Outcome endless = run("crawl --seed http://127.0.0.1:9/ --cookies-file /dev/zero --db " + dir.path("c.db"));
  CHECK(endless.exit_code == 2);
  CHECK(contains(endless.output, "cookies_file '/dev/zero': larger than 16 MiB"));
}
