#include "core/web/robots_txt.h"

#include <catch2/catch.hpp>

#include "cpu_cost.h"

#include <chrono>
#include <string>
#include <string_view>

namespace actorcrawl {
namespace {

constexpr std::string_view kToken = "actorcrawl";

bool allowed(std::string_view body, std::string_view path, std::string_view token = kToken) {
  return RobotsRules::parse(body, token).allowed(path);
}

// A robots.txt whose only group applies to everyone and holds `rules`.
std::string for_everyone(std::string_view rules) {
  return "User-agent: *\n" + std::string(rules) + "\n";
}

}  // namespace

TEST_CASE("product_token_of takes the leading token of a User-Agent", "[robots]") {
  CHECK(product_token_of("actorcrawl/0.1 (+https://example.org/bot)") == "actorcrawl");
  CHECK(product_token_of("actorcrawl") == "actorcrawl");
  CHECK(product_token_of("  Actor_Crawl-X/2") == "Actor_Crawl-X");
  CHECK(product_token_of("Mozilla/5.0 (compatible; actorcrawl/0.1)") == "Mozilla");
  CHECK(product_token_of("/0.1").empty());
  CHECK(product_token_of("").empty());
}

TEST_CASE("RFC 9309 5.1: the simple example", "[robots]") {
  const std::string body =
      "User-Agent: *\n"
      "Disallow: *.gif$\n"
      "Disallow: /example/\n"
      "Allow: /publications/\n"
      "\n"
      "User-Agent: foobot\n"
      "Disallow:/\n"
      "Allow:/example/page.html\n"
      "Allow:/example/allowed.gif\n"
      "\n"
      "User-Agent: barbot\n"
      "User-Agent: bazbot\n"
      "Disallow: /example/page.html\n"
      "\n"
      "User-Agent: quxbot\n"
      "\n"
      "EOF\n";

  // foobot: everything disallowed except two pages.
  CHECK(allowed(body, "/example/page.html", "foobot"));
  CHECK(allowed(body, "/example/allowed.gif", "foobot"));
  CHECK_FALSE(allowed(body, "/", "foobot"));
  CHECK_FALSE(allowed(body, "/example/other.html", "foobot"));
  CHECK_FALSE(allowed(body, "/publications/", "foobot"));

  // barbot and bazbot share one group.
  for (const char* bot : {"barbot", "bazbot"}) {
    CHECK_FALSE(allowed(body, "/example/page.html", bot));
    CHECK(allowed(body, "/example/other.html", bot));
    CHECK(allowed(body, "/image.gif", bot));
  }

  // quxbot's group is empty: nothing is disallowed, and "*" does not apply.
  CHECK(allowed(body, "/example/page.html", "quxbot"));
  CHECK(allowed(body, "/image.gif", "quxbot"));

  // Everyone else gets the "*" group.
  CHECK_FALSE(allowed(body, "/image.gif", "otherbot"));
  CHECK_FALSE(allowed(body, "/dir/image.gif", "otherbot"));
  CHECK(allowed(body, "/image.gif?size=2", "otherbot"));  // "$" anchors the end
  CHECK_FALSE(allowed(body, "/example/", "otherbot"));
  CHECK_FALSE(allowed(body, "/example/page.html", "otherbot"));
  CHECK(allowed(body, "/publications/", "otherbot"));
  CHECK(allowed(body, "/", "otherbot"));
}

TEST_CASE("RFC 9309 5.2: the longest match wins", "[robots]") {
  const std::string body =
      "User-Agent: foobot\n"
      "Allow: /example/page/\n"
      "Disallow: /example/page/disallowed.gif\n";
  CHECK(allowed(body, "/example/page/", "foobot"));
  CHECK(allowed(body, "/example/page/allowed.gif", "foobot"));
  CHECK_FALSE(allowed(body, "/example/page/disallowed.gif", "foobot"));
  CHECK_FALSE(allowed(body, "/example/page/disallowed.gif?x=1", "foobot"));
}

TEST_CASE("RFC 9309 2.2.2: paths and patterns compare in one percent-encoding", "[robots]") {
  // Each pattern disallows exactly what it names; a path that matches it is
  // disallowed, one that does not is allowed.
  struct Case {
    const char* pattern;
    const char* path;
    bool matches;
  };
  const Case cases[] = {
      {"/foo/bar?baz=quz", "/foo/bar?baz=quz", true},
      {"/foo/bar?baz=", "/foo/bar?baz=", true},
      {"/foo/bar?baz=https%3A%2F%2Ffoo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", true},
      {"/foo/bar?baz=https%3a%2f%2ffoo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", true},
      {"/foo/bar?baz=https://foo.bar", "/foo/bar?baz=https://foo.bar", true},
      // UTF-8 in the pattern is percent-encoded before comparison.
      {"/foo/bar/\xE3\x83\x84", "/foo/bar/%E3%83%84", true},
      {"/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84", true},
      {"/foo/bar/%e3%83%84", "/foo/bar/%E3%83%84", true},
      {"/foo/bar/%E3%83%84", "/foo/bar/\xE3\x83\x84", true},
      // Unreserved characters are the same octet encoded or not.
      {"/foo/bar/%62%61%7A", "/foo/bar/baz", true},
      {"/foo/bar/baz", "/foo/bar/%62%61%7A", true},
      {"/%7euser/", "/~user/", true},
      {"/~user/", "/%7Euser/", true},
      // Reserved characters are not: "%2F" is not "/".
      {"/a%2Fb", "/a/b", false},
      {"/a/b", "/a%2Fb", false},
      {"/a%2fb", "/a%2Fb", true},
      // Section 2.2.3: "%2A" and "%24" are a literal '*' and '$'.
      {"/path/file-with-a-%2A.html", "/path/file-with-a-*.html", true},
      {"/path/file-with-a-%2A.html", "/path/file-with-a-%2A.html", true},
      {"/path/file-with-a-%2A.html", "/path/file-with-a-x.html", false},
      {"/path/foo-%24", "/path/foo-$", true},
      {"/path/foo-%24", "/path/foo-%24", true},
      {"/path/foo-%24", "/path/foo-x", false},
      // A '$' that does not end the pattern is literal.
      {"/a$b", "/a$b", true},
      {"/a$b", "/a", false},
      // A stray '%' is a literal percent sign on both sides.
      {"/100%", "/100%", true},
      {"/100%", "/100%25", true},
  };
  for (const Case& c : cases) {
    INFO("pattern " << c.pattern << " path " << c.path);
    CHECK(allowed(for_everyone(std::string("Disallow: ") + c.pattern), c.path) != c.matches);
  }
}

TEST_CASE("group selection by product token", "[robots]") {
  const std::string body =
      "User-agent: otherbot\n"
      "Disallow: /other\n"
      "\n"
      "User-agent: ActorCrawl\n"
      "Disallow: /ours\n"
      "\n"
      "User-agent: *\n"
      "Disallow: /everyone\n";

  SECTION("our group, matched case-insensitively, replaces \"*\"") {
    CHECK_FALSE(allowed(body, "/ours"));
    CHECK(allowed(body, "/everyone"));
    CHECK(allowed(body, "/other"));
    CHECK_FALSE(allowed(body, "/ours", "ACTORCRAWL"));
  }
  SECTION("another crawler falls back to \"*\"") {
    CHECK_FALSE(allowed(body, "/everyone", "somebot"));
    CHECK(allowed(body, "/ours", "somebot"));
  }
  SECTION("a product token must match whole, not as a prefix") {
    CHECK_FALSE(allowed(body, "/everyone", "actor"));
    CHECK_FALSE(allowed(body, "/everyone", "actorcrawler"));
    CHECK(allowed("User-agent: actorcrawler\nDisallow: /\n", "/x"));
    CHECK(allowed("User-agent: actor\nDisallow: /\n", "/x"));
  }
  SECTION("a full User-Agent string is reduced to its product token") {
    CHECK_FALSE(allowed(body, "/ours", "actorcrawl/0.1 (+https://example.org)"));
  }
  SECTION("a version after the token in the robots.txt line still matches") {
    CHECK_FALSE(allowed("User-agent: actorcrawl/1.0\nDisallow: /x\n", "/x"));
    CHECK_FALSE(allowed("User-agent: ActorCrawl 1.0 (beta)\nDisallow: /x\n", "/x"));
  }
  SECTION("no matching group and no \"*\" group: no restrictions") {
    CHECK(allowed("User-agent: otherbot\nDisallow: /\n", "/anything"));
    CHECK(allowed("", "/anything"));
  }
}

TEST_CASE("groups naming the same agent are combined", "[robots]") {
  const std::string body =
      "User-agent: actorcrawl\n"
      "Disallow: /a\n"
      "\n"
      "User-agent: *\n"
      "Disallow: /star\n"
      "\n"
      "User-agent: ACTORCRAWL\n"
      "Disallow: /b\n"
      "Allow: /a/open\n";
  CHECK_FALSE(allowed(body, "/a"));
  CHECK_FALSE(allowed(body, "/b"));
  CHECK(allowed(body, "/a/open/page"));
  CHECK(allowed(body, "/star"));

  // Several "*" groups are combined as well.
  const std::string stars = "User-agent: *\nDisallow: /x\n\nUser-agent: *\nDisallow: /y\n";
  CHECK_FALSE(allowed(stars, "/x"));
  CHECK_FALSE(allowed(stars, "/y"));
  CHECK(allowed(stars, "/z"));
}

TEST_CASE("stacked user-agent lines share a group, a user-agent after rules starts one",
          "[robots]") {
  const std::string body =
      "User-agent: somebot\n"
      "User-agent: actorcrawl\n"
      "User-agent: otherbot\n"
      "Disallow: /shared\n"
      "User-agent: thirdbot\n"
      "Disallow: /third\n";
  CHECK_FALSE(allowed(body, "/shared"));
  CHECK(allowed(body, "/third"));
  CHECK_FALSE(allowed(body, "/shared", "somebot"));
  CHECK_FALSE(allowed(body, "/third", "thirdbot"));
  CHECK(allowed(body, "/shared", "thirdbot"));

  // Blank lines and comments inside a group do not end it.
  const std::string spaced =
      "User-agent: actorcrawl\n"
      "\n"
      "# private area\n"
      "\n"
      "Disallow: /private\n";
  CHECK_FALSE(allowed(spaced, "/private"));
}

TEST_CASE("'*' and '$' semantics", "[robots]") {
  SECTION("'*' matches any sequence, including an empty one") {
    const std::string body = for_everyone("Disallow: /foo/*/bar");
    CHECK_FALSE(allowed(body, "/foo/x/bar"));
    CHECK_FALSE(allowed(body, "/foo/x/y/bar"));
    CHECK_FALSE(allowed(body, "/foo//bar"));
    CHECK_FALSE(allowed(body, "/foo/x/barbaz"));
    CHECK(allowed(body, "/foo/bar"));
    CHECK(allowed(body, "/foo/x/baz"));
  }
  SECTION("a leading '*' matches anywhere in the path") {
    const std::string body = for_everyone("Disallow: /*.php");
    CHECK_FALSE(allowed(body, "/index.php"));
    CHECK_FALSE(allowed(body, "/a/b.php?x=1"));
    CHECK_FALSE(allowed(body, "/a.php5"));
    CHECK(allowed(body, "/a.html"));
  }
  SECTION("'$' anchors the end") {
    const std::string body = for_everyone("Disallow: /*.php$");
    CHECK_FALSE(allowed(body, "/index.php"));
    CHECK(allowed(body, "/index.php?x=1"));
    CHECK(allowed(body, "/index.php5"));
    CHECK_FALSE(allowed(for_everyone("Disallow: /exact$"), "/exact"));
    CHECK(allowed(for_everyone("Disallow: /exact$"), "/exact/"));
    CHECK(allowed(for_everyone("Disallow: /$"), "/page"));
    CHECK_FALSE(allowed(for_everyone("Disallow: /$"), "/"));
  }
  SECTION("the query is part of what is matched") {
    const std::string body = for_everyone("Disallow: /*?*sessionid=");
    CHECK_FALSE(allowed(body, "/page?a=1&sessionid=2"));
    CHECK(allowed(body, "/page?a=1"));
    CHECK(allowed(body, "/sessionid="));
  }
  SECTION("a trailing \"*\" and \"*$\" change nothing") {
    CHECK_FALSE(allowed(for_everyone("Disallow: /a*"), "/abc"));
    CHECK_FALSE(allowed(for_everyone("Disallow: /a*$"), "/abc"));
    CHECK_FALSE(allowed(for_everyone("Disallow: /a**b"), "/a-b"));
    CHECK_FALSE(allowed(for_everyone("Disallow: *"), "/anything"));
  }
  SECTION("an anchored suffix cannot overlap the piece before it") {
    const std::string body = for_everyone("Disallow: /*aba*aba$");
    CHECK(allowed(body, "/ababa"));
    CHECK_FALSE(allowed(body, "/abaaba"));
    CHECK_FALSE(allowed(body, "/abababa"));
  }
  SECTION("matching is case-sensitive") {
    CHECK(allowed(for_everyone("Disallow: /Private"), "/private"));
  }
}

TEST_CASE("the longest pattern wins and Allow wins ties", "[robots]") {
  SECTION("equally long allow and disallow: allow") {
    const std::string body = for_everyone("Disallow: /page\nAllow: /page");
    CHECK(allowed(body, "/page"));
    const std::string reversed = for_everyone("Allow: /page\nDisallow: /page");
    CHECK(allowed(reversed, "/page"));
  }
  SECTION("wildcards count as octets of the pattern") {
    // "/*/page" (7 octets) beats "/a/pa" (5); "/a/page1" (8) beats both.
    const std::string body = for_everyone("Disallow: /a/pa\nAllow: /*/page\nDisallow: /a/page1");
    CHECK(allowed(body, "/a/page"));
    CHECK_FALSE(allowed(body, "/a/pag"));
    CHECK_FALSE(allowed(body, "/a/page1"));
  }
  SECTION("allow \"/\" against disallow \"/$\"") {
    const std::string body = for_everyone("Allow: /\nDisallow: /$");
    CHECK_FALSE(allowed(body, "/"));
    CHECK(allowed(body, "/page"));
  }
  SECTION("length is counted after normalization") {
    // "/%61bc" is "/abc" (4 octets), shorter than "/abc?" (5).
    const std::string body = for_everyone("Disallow: /abc?\nAllow: /%61bc");
    CHECK_FALSE(allowed(body, "/abc?x"));
    CHECK(allowed(body, "/abcd"));
  }
}

TEST_CASE("/robots.txt is always allowed", "[robots]") {
  CHECK(allowed(for_everyone("Disallow: /"), "/robots.txt"));
  CHECK(allowed(for_everyone("Disallow: /robots.txt"), "/robots.txt"));
  CHECK(RobotsRules::disallow_all().allowed("/robots.txt"));
  CHECK_FALSE(RobotsRules::disallow_all().allowed("/robots.txt.bak"));
  CHECK_FALSE(allowed(for_everyone("Disallow: /"), "/robots.txt?x=1"));
}

TEST_CASE("line endings, BOM and comments", "[robots]") {
  for (const char* eol : {"\n", "\r", "\r\n"}) {
    INFO("line end " << (eol[0] == '\n' ? "LF" : eol[1] == '\n' ? "CRLF" : "CR"));
    const std::string e(eol);
    const std::string body = "User-agent: actorcrawl" + e + "Disallow: /a" + e + "Disallow: /b" + e +
                             e + "User-agent: *" + e + "Disallow: /c";
    CHECK_FALSE(allowed(body, "/a"));
    CHECK_FALSE(allowed(body, "/b"));
    CHECK(allowed(body, "/c"));
  }
  // Mixed line ends in one file; CR CR is two line ends, not one.
  CHECK_FALSE(allowed("User-agent: *\r\rDisallow: /x\n\r\nDisallow: /y", "/y"));

  SECTION("a UTF-8 byte order mark is ignored") {
    const std::string body = "\xEF\xBB\xBFUser-agent: *\nDisallow: /x\n";
    CHECK_FALSE(allowed(body, "/x"));
    CHECK(allowed(body, "/y"));
  }
  SECTION("comments are cut wherever they start") {
    const std::string body =
        "# a comment line\n"
        "User-agent: actorcrawl # our group\n"
        "Disallow: /private # not for crawlers\n"
        "Disallow: #/commented-out\n";
    CHECK_FALSE(allowed(body, "/private"));
    CHECK(allowed(body, "/commented-out"));
    CHECK(allowed(body, "/"));
  }
  SECTION("whitespace around keys, colons and values is tolerated") {
    const std::string body = "  USER-AGENT \t:  actorcrawl  \n\tdisALLOW   :   /x  \n";
    CHECK_FALSE(allowed(body, "/x"));
  }
  SECTION("lines without a colon and unknown keys are ignored") {
    const std::string body =
        "User-agent: actorcrawl\n"
        "Disallow /nocolon\n"
        "Noindex: /unknown\n"
        "Disallow: /x\n";
    CHECK(allowed(body, "/nocolon"));
    CHECK(allowed(body, "/unknown"));
    CHECK_FALSE(allowed(body, "/x"));
  }
}

TEST_CASE("rules outside any group and empty rules", "[robots]") {
  SECTION("rules before the first user-agent line are ignored") {
    const std::string body = "Disallow: /early\nUser-agent: *\nDisallow: /late\n";
    CHECK(allowed(body, "/early"));
    CHECK_FALSE(allowed(body, "/late"));
    CHECK(allowed("Disallow: /\n", "/x"));
    CHECK(RobotsRules::parse("Disallow: /\n", kToken).rule_count() == 0);
  }
  SECTION("an empty disallow forbids nothing") {
    const std::string body = "User-agent: actorcrawl\nDisallow:\n\nUser-agent: *\nDisallow: /\n";
    CHECK(allowed(body, "/"));
    CHECK(allowed(body, "/anything"));
    CHECK(RobotsRules::parse(body, kToken).rule_count() == 0);
  }
  SECTION("an empty disallow still ends the list of user agents") {
    const std::string body =
        "User-agent: otherbot\nDisallow:\nUser-agent: actorcrawl\nDisallow: /x\n";
    CHECK(allowed(body, "/x", "otherbot"));
    CHECK_FALSE(allowed(body, "/x"));
  }
}

TEST_CASE("overlong lines are ignored", "[robots]") {
  const std::string long_pattern = "/" + std::string(RobotsRules::kMaxLineBytes, 'a');
  const std::string body = for_everyone("Disallow: " + long_pattern + "\nDisallow: /short");
  CHECK(allowed(body, long_pattern));
  CHECK_FALSE(allowed(body, "/short"));

  // A line just under the limit is still read.
  const std::string fits = "/" + std::string(RobotsRules::kMaxLineBytes - 20, 'b');
  CHECK_FALSE(allowed(for_everyone("Disallow: " + fits), fits));
}

TEST_CASE("non-ASCII patterns match percent-encoded paths", "[robots]") {
  // "/café" and "/日本" written as UTF-8 in the file.
  const std::string body = for_everyone("Disallow: /caf\xC3\xA9\nDisallow: /\xE6\x97\xA5\xE6\x9C\xAC/");
  CHECK_FALSE(allowed(body, "/caf%C3%A9"));
  CHECK_FALSE(allowed(body, "/caf%c3%a9/menu"));
  CHECK(allowed(body, "/cafe"));
  CHECK_FALSE(allowed(body, "/%E6%97%A5%E6%9C%AC/page"));
  CHECK(allowed(body, "/%E6%97%A5"));
  // A path with raw UTF-8 is encoded the same way.
  CHECK_FALSE(allowed(body, "/caf\xC3\xA9"));
}

TEST_CASE("Crawl-delay", "[robots]") {
  auto delay = [](std::string_view body, std::string_view token = kToken) {
    return RobotsRules::parse(body, token).crawl_delay_ms();
  };
  CHECK(delay("User-agent: *\nCrawl-delay: 10\n") == 10000);
  CHECK(delay("User-agent: *\nCrawl-delay: 0.5\n") == 500);
  CHECK(delay("User-agent: *\ncrawl-delay : 2.25 # polite\n") == 2250);
  CHECK(delay("User-agent: *\nCrawl-delay: .5\n") == 500);
  CHECK(delay("User-agent: *\nCrawl-delay: 0\n") == 0);
  CHECK(delay("User-agent: *\nDisallow: /x\n") == std::nullopt);
  for (const char* garbage : {"abc", "-1", "1e3", "5s", "", "1.2.3", ".", "0x10"}) {
    INFO("value " << garbage);
    CHECK(delay(std::string("User-agent: *\nCrawl-delay: ") + garbage + "\n") == std::nullopt);
  }
  // Absurd values are clamped rather than overflowing.
  CHECK(delay("User-agent: *\nCrawl-delay: 99999999999999999999999999\n") ==
        RobotsRules::kMaxCrawlDelayMs);

  SECTION("only the applying group's delay counts") {
    const std::string body =
        "User-agent: *\nCrawl-delay: 30\n\nUser-agent: actorcrawl\nCrawl-delay: 2\nDisallow: /x\n";
    CHECK(delay(body) == 2000);
    CHECK(delay(body, "otherbot") == 30000);
    CHECK(delay("User-agent: otherbot\nCrawl-delay: 5\n") == std::nullopt);
    CHECK(delay("Crawl-delay: 5\nUser-agent: *\n") == std::nullopt);
  }
  SECTION("combined groups keep the largest delay") {
    const std::string body =
        "User-agent: actorcrawl\nCrawl-delay: 1\n\nUser-agent: actorcrawl\nCrawl-delay: 4\n"
        "Crawl-delay: 3\n";
    CHECK(delay(body) == 4000);
  }
  SECTION("a crawl-delay ends the list of user agents like a rule does") {
    const std::string body = "User-agent: otherbot\nCrawl-delay: 9\nUser-agent: actorcrawl\n";
    CHECK(delay(body) == std::nullopt);
    CHECK(delay(body, "otherbot") == 9000);
  }
  SECTION("fixed rules carry no delay") {
    CHECK(RobotsRules::allow_all().crawl_delay_ms() == std::nullopt);
    CHECK(RobotsRules::disallow_all().crawl_delay_ms() == std::nullopt);
  }
}

TEST_CASE("Sitemap lines are collected from anywhere", "[robots]") {
  const std::string body =
      "Sitemap: https://example.org/sitemap1.xml\n"
      "User-agent: otherbot\n"
      "Disallow: /\n"
      "sitemap:https://example.org/sitemap2.xml\n"
      "User-agent: actorcrawl\n"
      "SITEMAP :  https://example.org/sitemap1.xml  \n"
      "Sitemap: https://example.org/news.xml # news\n"
      "Sitemap:\n"
      "Disallow: /x\n";
  const RobotsRules rules = RobotsRules::parse(body, kToken);
  CHECK(rules.sitemaps() == std::vector<std::string>{"https://example.org/sitemap1.xml",
                                                     "https://example.org/sitemap2.xml",
                                                     "https://example.org/news.xml"});
  // A sitemap line between user-agent lines and rules does not end the group.
  CHECK_FALSE(rules.allowed("/x"));
  CHECK(rules.allowed("/y"));

  CHECK(RobotsRules::parse("Sitemap: https://example.org/s.xml\n", kToken).sitemaps().size() == 1);
  CHECK(RobotsRules::allow_all().sitemaps().empty());
}

TEST_CASE("only the first 500 KiB are parsed", "[robots]") {
  std::string body = "User-agent: *\nDisallow: /early\n";
  while (body.size() < 600 * 1024) body += "# padding padding padding padding padding padding\n";
  body += "Disallow: /late\n";
  CHECK_FALSE(allowed(body, "/early"));
  CHECK(allowed(body, "/late"));

  SECTION("a line cut by the limit is dropped, not shortened") {
    std::string cut = "User-agent: *\n";
    cut += std::string(RobotsRules::kMaxBodyBytes - cut.size() - 12, '\n');
    cut += "Disallow: /abo";  // the limit falls inside this line ...
    cut += "ut\n";            // ... which continues past it
    REQUIRE(cut.size() > RobotsRules::kMaxBodyBytes);
    CHECK(allowed(cut, "/abo"));
    CHECK(allowed(cut, "/about"));
  }
  SECTION("a line ending exactly at the limit is kept") {
    std::string exact = "User-agent: *\n";
    const std::string rule = "Disallow: /about";
    exact += std::string(RobotsRules::kMaxBodyBytes - exact.size() - rule.size(), '\n');
    exact += rule;
    exact += "\nDisallow: /";
    REQUIRE(exact.size() > RobotsRules::kMaxBodyBytes);
    CHECK_FALSE(allowed(exact, "/about"));
    CHECK(allowed(exact, "/other"));
  }
}

TEST_CASE("from_response follows RFC 9309 2.3.1", "[robots]") {
  const std::string body = for_everyone("Disallow: /private");
  SECTION("2xx: the body is parsed") {
    const RobotsRules rules = RobotsRules::from_response(200, body, kToken);
    CHECK(rules.source() == RobotsRules::Source::parsed);
    CHECK_FALSE(rules.allowed("/private"));
    CHECK(rules.allowed("/public"));
    CHECK(RobotsRules::from_response(204, "", kToken).allowed("/private"));
  }
  SECTION("4xx: unavailable, everything allowed") {
    for (int status : {400, 403, 404, 410}) {
      INFO("status " << status);
      const RobotsRules rules = RobotsRules::from_response(status, body, kToken);
      CHECK(rules.source() == RobotsRules::Source::allow_all);
      CHECK(rules.allowed("/private"));
    }
  }
  SECTION("redirects left unresolved count as unavailable") {
    CHECK(RobotsRules::from_response(301, body, kToken).source() ==
          RobotsRules::Source::allow_all);
  }
  SECTION("5xx and no response: unreachable, everything disallowed") {
    for (int status : {500, 503, 0, -1, 100, 600}) {
      INFO("status " << status);
      const RobotsRules rules = RobotsRules::from_response(status, body, kToken);
      CHECK(rules.source() == RobotsRules::Source::disallow_all);
      CHECK_FALSE(rules.allowed("/public"));
      CHECK_FALSE(rules.allowed("/"));
      CHECK(rules.allowed("/robots.txt"));
    }
  }
}

TEST_CASE("fixed rules and odd paths", "[robots]") {
  CHECK(RobotsRules::allow_all().source() == RobotsRules::Source::allow_all);
  CHECK(RobotsRules::allow_all().allowed("/anything"));
  CHECK(RobotsRules::disallow_all().source() == RobotsRules::Source::disallow_all);
  CHECK(RobotsRules::parse("", kToken).source() == RobotsRules::Source::parsed);
  // A path without its leading '/' and an empty one are read as rooted.
  const std::string body = for_everyone("Disallow: /x\nDisallow: /$");
  CHECK_FALSE(allowed(body, "x/y"));
  CHECK_FALSE(allowed(body, ""));
  // Patterns that do not start with '/' or '*' cannot match a path.
  CHECK(allowed(for_everyone("Disallow: private"), "/private"));
}

TEST_CASE("hostile patterns match in bounded time", "[robots]") {
  std::string pattern = "/";
  for (int i = 0; i < 2000; ++i) pattern += "*a";
  pattern += "*b$";
  std::string path = "/" + std::string(100 * 1024, 'a');
  const RobotsRules rules = RobotsRules::parse(for_everyone("Disallow: " + pattern), kToken);
  REQUIRE(rules.rule_count() == 1);

  CHECK(rules.allowed(path));
  path += 'b';
  CHECK_FALSE(rules.allowed(path));
  // Also a long literal piece that almost matches everywhere ("aaa...ab").
  const RobotsRules almost = RobotsRules::parse(
      for_everyone("Disallow: /*" + std::string(4000, 'a') + "c"), kToken);
  CHECK(almost.allowed(path));
  // Linear in the path: from 256 KiB to 4 MiB its cost grows at most 4
  // times as much as a plain rule's on the same paths (a ratio of this
  // thread's CPU time, never a bound on a clock; cpu_cost.h says why these
  // sizes and this comparison).
  const auto cost_of = [](const RobotsRules& r) {
    return [&r](const std::string& p) {
      return testing::least_cpu_cost([&] {
        const bool allowed = r.allowed(p);
        (void)allowed;
      });
    };
  };
  const std::string small = "/" + std::string(testing::kLinearityBytes, 'a');
  const std::string large = "/" + std::string(testing::kLinearityFactor * testing::kLinearityBytes, 'a');
  const RobotsRules plain = RobotsRules::parse(for_everyone("Disallow: /a*b"), kToken);
  const double baseline = testing::cost_growth(cost_of(plain), small, large).ratio;
  for (const RobotsRules* r : {&rules, &almost}) {
    const double growth = testing::cost_growth(cost_of(*r), small, large, baseline).ratio;
    WARN("a hostile pattern's cost grew " << growth / baseline << " times as much as a plain one's from "
                                          << small.size() / 1024 << " KiB to " << large.size() / 1024 << " KiB");
    CHECK(growth / baseline <= testing::kMaxRelativeGrowth);
  }
}

TEST_CASE("the number of rules kept is bounded", "[robots]") {
  std::string body = "User-agent: *\n";
  for (std::size_t i = 0; i < RobotsRules::kMaxRules + 100; ++i) {
    body += "Disallow: /p" + std::to_string(i) + "$\n";
  }
  const RobotsRules rules = RobotsRules::parse(body, kToken);
  CHECK(rules.rule_count() == RobotsRules::kMaxRules);
  CHECK_FALSE(rules.allowed("/p0"));
  CHECK(rules.allowed("/p" + std::to_string(RobotsRules::kMaxRules + 50)));
}

}  // namespace actorcrawl
