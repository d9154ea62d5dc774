#include "bench/micro/corpus.h"

#include <array>
#include <string_view>

namespace bench {
namespace {

constexpr std::array<std::string_view, 96> kWords = {
    "the",      "crawler",   "network",  "city",      "council",  "approved", "budget",
    "for",      "next",      "year",     "after",     "long",     "debate",   "about",
    "schools",  "roads",     "and",      "public",    "transport", "a",       "new",
    "report",   "shows",     "that",     "energy",    "prices",   "fell",     "in",
    "spring",   "while",     "demand",   "kept",      "rising",   "across",   "region",
    "market",   "analysts",  "expect",   "growth",    "to",       "slow",     "during",
    "second",   "half",      "of",       "software",  "release",  "includes", "faster",
    "parser",   "better",    "support",  "older",     "browsers", "with",     "fewer",
    "bugs",     "local",     "team",     "won",       "final",    "match",    "on",
    "sunday",   "evening",   "before",   "crowd",     "thousand", "fans",     "museum",
    "opens",    "exhibition", "history", "science",   "weather",  "remains",  "warm",
    "dry",      "this",      "week",     "is",        "it",       "was",      "were",
    "has",      "have",      "been",     "more",      "than",     "most",     "people",
    "said",     "they",      "would",    "research",  "data",
};

// Words with a non-ASCII letter, written per encoding.
struct Accented {
  std::string_view utf8;
  std::string_view cp1252;
};
constexpr std::array<Accented, 6> kAccented = {{
    {"caf\xC3\xA9", "caf\xE9"},
    {"na\xC3\xAFve", "na\xEFve"},
    {"r\xC3\xA9sum\xC3\xA9", "r\xE9sum\xE9"},
    {"M\xC3\xBCnchen", "M\xFCnchen"},
    {"\xE2\x80\x9Cquoted\xE2\x80\x9D", "\x93quoted\x94"},
    {"fa\xC3\xA7" "ade", "fa\xE7" "ade"},
}};

constexpr std::array<std::string_view, 8> kSections = {
    "news", "sport", "business", "technology", "science", "culture", "travel", "opinion"};

constexpr std::array<std::string_view, 10> kOtherHosts = {
    "en.wikipedia.org",       "github.com",          "www.youtube.com",
    "twitter.com",            "news.ycombinator.com", "www.bbc.co.uk",
    "docs.python.org",        "stackoverflow.com",   "archive.org",
    "www.nytimes.com",
};

std::string_view word(Rng& rng) { return kWords[rng.below(kWords.size())]; }

std::string slug(Rng& rng, std::size_t words) {
  std::string s;
  for (std::size_t i = 0; i < words; ++i) {
    if (i) s += '-';
    s += word(rng);
  }
  return s;
}

std::string sentence(Rng& rng, Encoding enc, std::size_t words) {
  std::string s;
  for (std::size_t i = 0; i < words; ++i) {
    if (i) s += ' ';
    if (rng.chance(3)) {
      const Accented& a = kAccented[rng.below(kAccented.size())];
      s += enc == Encoding::utf8 ? a.utf8 : a.cp1252;
    } else {
      s += word(rng);
    }
  }
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  s += '.';
  return s;
}

// One href in one of the forms pages use; `i` picks the form so every page
// gets the same mix.
std::string href(Rng& rng, std::size_t i) {
  const std::string_view section = kSections[rng.below(kSections.size())];
  switch (i % 12) {
    case 0: return "/" + std::string(section) + "/2023/" + std::to_string(1 + rng.below(12)) + "/" + slug(rng, 5);
    case 1: return slug(rng, 3) + ".html";
    case 2: return "../" + std::string(section) + "/" + slug(rng, 2) + "/";
    case 3:
      return "https://www.example.com/article?id=" + std::to_string(rng.below(100000)) +
             "&amp;utm_source=feed&amp;utm_medium=rss&amp;utm_campaign=" + slug(rng, 1);
    case 4: return "//cdn.example.net/files/" + slug(rng, 2) + ".pdf";
    case 5: return "https://" + std::string(kOtherHosts[rng.below(kOtherHosts.size())]) + "/wiki/" + slug(rng, 2);
    case 6: return "/search?q=" + std::string(word(rng)) + "+" + std::string(word(rng)) + "&amp;page=" + std::to_string(1 + rng.below(9));
    case 7: return "/tag/caf%c3%a9-" + std::string(word(rng));
    case 8: return "  /" + std::string(section) + "/" + slug(rng, 3) + "?ref=home#comments ";
    case 9: return "./" + slug(rng, 2) + "/index.php?sessionid=" + std::to_string(rng.next() % 1000000007ULL) + "&amp;fbclid=IwAR" + std::to_string(rng.below(1000000));
    case 10: return "https://www.example.com/" + std::string(section) + "/" + slug(rng, 4);
    default: return "/" + std::string(section) + "/";
  }
}

void anchor(std::string& out, Rng& rng, std::size_t i, std::string_view text) {
  out += "<a href=\"";
  out += href(rng, i);
  out += '"';
  if (i % 12 == 5) out += " rel=\"nofollow noopener\" target=\"_blank\"";
  if (i % 7 == 3) out += " class=\"inline-link\"";
  out += '>';
  out += text;
  out += "</a>";
}

constexpr std::string_view kInlineScript =
    "<script>\n"
    "  window.dataLayer = window.dataLayer || [];\n"
    "  function gtag(){dataLayer.push(arguments);}\n"
    "  gtag('js', new Date()); gtag('config', 'G-XXXXXXX', {anonymize_ip: true});\n"
    "  (function(){ var s = document.createElement('script'); s.async = true;\n"
    "    s.src = '/static/js/consent.js?v=4'; if (document.cookie.indexOf('consent=') < 0 && 1 < 2)\n"
    "    document.head.appendChild(s); })();\n"
    "</script>\n";

Page make_page(Rng& rng, std::size_t index, std::size_t target_bytes, Encoding enc) {
  Page page;
  const std::string_view section = kSections[index % kSections.size()];
  page.url = "https://www.example.com/" + std::string(section) + "/2023/" +
             std::to_string(1 + index % 12) + "/" + slug(rng, 4);
  std::string& h = page.body;
  h.reserve(target_bytes + 4096);
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n";
  h += enc == Encoding::utf8 ? "<meta charset=\"utf-8\">\n"
                             : "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  const std::string title = sentence(rng, enc, 6 + rng.below(6));
  h += "<title>" + title.substr(0, title.size() - 1) + " | Example News</title>\n";
  h += "<meta name=\"description\" content=\"" + sentence(rng, enc, 20 + rng.below(10)) + "\">\n";
  h += "<meta property=\"og:title\" content=\"" + title + "\">\n";
  h += "<link rel=\"canonical\" href=\"" + page.url + "\">\n";
  h += "<link rel=\"stylesheet\" href=\"/static/css/site.css?v=" + std::to_string(rng.below(1000)) + "\">\n";
  h += "<link rel=\"icon\" href=\"/favicon.ico\">\n";
  h += kInlineScript;
  h += "</head>\n<body class=\"article-page\">\n";

  std::size_t link = 0;
  // Navigation: 8 links.
  h += "<header class=\"site-header\"><div class=\"logo\"><img src=\"/static/logo.svg\" alt=\"Example\" width=\"120\" height=\"32\"></div>\n";
  h += "<nav aria-label=\"main\"><ul class=\"menu\">\n";
  for (int i = 0; i < 8; ++i, ++link) {
    h += "  <li class=\"menu-item\">";
    anchor(h, rng, link, kSections[i]);
    h += "</li>\n";
  }
  h += "</ul></nav></header>\n";

  // Article: 10 inline links spread over the first paragraphs, then text up
  // to the target size.
  h += "<main id=\"content\"><article itemscope itemtype=\"https://schema.org/NewsArticle\">\n";
  h += "<h1 itemprop=\"headline\">" + title + "</h1>\n";
  h += "<p class=\"byline\">By <span class=\"author\">" + std::string(word(rng)) +
       "</span> &middot; <time datetime=\"2023-05-17T08:30:00Z\">17 May 2023</time></p>\n";
  const std::size_t footer_reserve = 1400;
  std::size_t paragraph = 0;
  std::size_t inline_links = 0;
  while (h.size() + footer_reserve < target_bytes || inline_links < 10) {
    h += "<p>";
    const std::size_t sentences = 3 + rng.below(4);
    for (std::size_t s = 0; s < sentences; ++s) {
      if (s) h += ' ';
      std::string text = sentence(rng, enc, 8 + rng.below(14));
      if (s == 1 && inline_links < 10 && paragraph % 2 == 0) {
        const std::size_t cut = text.find(' ');
        h += text.substr(0, cut + 1);
        anchor(h, rng, link++, std::string(word(rng)) + " " + std::string(word(rng)));
        h += text.substr(cut);
        ++inline_links;
      } else if (rng.chance(20)) {
        h += "<strong>" + text + "</strong>";
      } else if (rng.chance(15)) {
        const std::size_t cut = text.find(' ');
        h += text.substr(0, cut) + " <em>" + std::string(word(rng)) + "</em>" + text.substr(cut);
      } else {
        h += text;
      }
    }
    h += "</p>\n";
    if (++paragraph % 6 == 0) {
      h += "<figure><img src=\"/images/2023/" + slug(rng, 2) + ".jpg\" alt=\"" + std::string(word(rng)) +
           "\" loading=\"lazy\" width=\"800\" height=\"450\"><figcaption>" + sentence(rng, enc, 8) +
           "</figcaption></figure>\n";
    }
    if (paragraph % 9 == 0) h += "<h2>" + sentence(rng, enc, 4) + "</h2>\n";
  }
  h += "</article>\n";

  // Related: 6 links.
  h += "<aside class=\"related\"><h2>Related</h2><ul>\n";
  for (int i = 0; i < 6; ++i, ++link) {
    h += "  <li>";
    anchor(h, rng, link, sentence(rng, enc, 5));
    h += "</li>\n";
  }
  h += "</ul></aside></main>\n";

  // Footer: 3 fetchable links and the 3 a crawler drops.
  h += "<footer class=\"site-footer\"><ul>\n";
  h += "  <li><a href=\"/about/privacy\">Privacy</a></li>\n";
  h += "  <li><a href=\"/about/terms?lang=en\">Terms</a></li>\n";
  h += "  <li><a href=\"https://twitter.com/example\" rel=\"nofollow me\">Twitter</a></li>\n";
  h += "  <li><a href=\"#top\">Back to top</a></li>\n";
  h += "  <li><a href=\"javascript:void(0)\" onclick=\"openConsent()\">Cookies</a></li>\n";
  h += "  <li><a href=\"mailto:news@example.com\">Contact</a></li>\n";
  h += "</ul><p>&copy; 2023 Example News Ltd.</p></footer>\n";
  h += "<script src=\"/static/js/app.js?v=" + std::to_string(rng.below(1000)) + "\" defer></script>\n";
  h += "</body>\n</html>\n";
  return page;
}

}  // namespace

std::vector<Page> make_pages(std::size_t count, std::size_t target_bytes, Encoding encoding,
                             std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Page> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) out.push_back(make_page(rng, i, target_bytes, encoding));
  return out;
}

const std::vector<Page>& pages() {
  static const std::vector<Page> corpus = make_pages(64);
  return corpus;
}

std::size_t total_bytes(const std::vector<Page>& pages) {
  std::size_t n = 0;
  for (const Page& p : pages) n += p.body.size();
  return n;
}

std::vector<std::string> make_absolute_urls(std::size_t count, std::uint64_t seed) {
  Rng rng(seed ^ 0xABCDEFULL);
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; out.size() < count; ++i) {
    const std::string_view section = kSections[rng.below(kSections.size())];
    const std::string_view other = kOtherHosts[rng.below(kOtherHosts.size())];
    switch (i % 12) {
      case 0:
        out.push_back("https://www.example.com/" + std::string(section) + "/2023/05/17/" + slug(rng, 5));
        break;
      case 1:
        out.push_back("https://shop.example.org/products/" + std::to_string(rng.below(100000)) +
                      "?color=blue&size=m&utm_source=google&utm_medium=cpc&utm_campaign=" + slug(rng, 2));
        break;
      case 2:
        out.push_back("http://Blog.Example.NET:80/2019/../2020/./" + slug(rng, 3) + ".html#comments");
        break;
      case 3: out.push_back("https://" + std::string(other) + "/wiki/Caf%c3%a9_" + slug(rng, 1)); break;
      case 4: out.push_back("https://www.example.com/search?q=" + std::string(word(rng)) + " " + std::string(word(rng)) + "&lang=en"); break;
      case 5: out.push_back("https://api.example.io:8443/v2/items/" + slug(rng, 2) + "/"); break;
      case 6:
        out.push_back("http://192.168.1." + std::to_string(1 + rng.below(254)) +
                      ":8080/admin/index.php?sessionid=" + std::to_string(rng.next() % 1000000007ULL) + "&page=2");
        break;
      case 7: out.push_back("https://www.example.com/path/na\xC3\xAFve/" + slug(rng, 2)); break;
      case 8:
        out.push_back("https://www.example.com/a/b/c/d/e/f/" + slug(rng, 2) +
                      ".html?x=1&y=2&z=3&fbclid=IwAR" + std::to_string(rng.below(1000000)));
        break;
      case 9: out.push_back("HTTPS://WWW.EXAMPLE.COM:443/" + std::string(section) + "/%7Euser/%2fkeep"); break;
      case 10: out.push_back("  https://" + std::string(other) + "/" + slug(rng, 3) + "  "); break;
      default: out.push_back("https://" + std::string(other) + "/"); break;
    }
  }
  return out;
}

std::vector<std::string> make_hrefs(std::size_t count, std::uint64_t seed) {
  Rng rng(seed ^ 0x123457ULL);
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::string h = href(rng, i);
    // The entities a parser would have decoded.
    for (std::size_t at; (at = h.find("&amp;")) != std::string::npos;) h.replace(at, 5, "&");
    out.push_back(std::move(h));
  }
  return out;
}

std::string make_robots_txt(std::size_t extra_rules, std::uint64_t seed) {
  Rng rng(seed ^ 0x70B075ULL);
  std::string r;
  r += "# robots.txt for https://www.example.com/\n";
  r += "# Please read our crawling policy before crawling.\n\n";
  r += "User-agent: Googlebot\nUser-agent: Bingbot\n";
  r += "Disallow: /search\nDisallow: /*?sessionid=\nAllow: /search/about\nCrawl-delay: 1\n\n";
  r += "User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\n";
  r += "User-agent: MJ12bot\nUser-agent: AhrefsBot\nUser-agent: SemrushBot\nDisallow: /\n\n";
  r += "User-agent: *\n";
  r += "Disallow: /admin/\nDisallow: /cgi-bin/\nDisallow: /search\nDisallow: /login\n";
  r += "Disallow: /account/\nDisallow: /cart\nDisallow: /checkout/\nDisallow: /api/\n";
  r += "Disallow: /*?sessionid=\nDisallow: /*&sessionid=\nDisallow: /*?replytocom=\n";
  r += "Disallow: /*.pdf$\nDisallow: /*.doc$\nDisallow: /print/*\nDisallow: /*/feed/$\n";
  r += "Disallow: /tag/*?page=\nDisallow: /news/*/comments\nDisallow: /wiki/Special:\n";
  r += "Disallow: /wiki/Spezial:\nDisallow: /wiki/Especial:\nDisallow: /w/\n";
  r += "Allow: /api/public/\nAllow: /search/about\nAllow: /wiki/Special:Search\n";
  r += "Allow: /*.css$\nAllow: /*.js$\n";
  for (std::size_t i = 0; i < extra_rules; ++i) {
    const std::string_view section = kSections[rng.below(kSections.size())];
    switch (i % 5) {
      case 0: r += "Disallow: /wiki/Special:" + slug(rng, 2) + "\n"; break;
      case 1: r += "Disallow: /" + std::string(section) + "/archive/" + std::to_string(1990 + rng.below(30)) + "/\n"; break;
      case 2: r += "Disallow: /*/" + std::string(word(rng)) + "-" + std::string(word(rng)) + "/*?print=\n"; break;
      case 3: r += "Disallow: /wiki/Wikipedia:Articles_for_deletion/" + slug(rng, 2) + "\n"; break;
      default: r += "Allow: /" + std::string(section) + "/archive/" + std::to_string(1990 + rng.below(30)) + "/index.html$\n"; break;
    }
  }
  r += "Crawl-delay: 2\n\n";
  r += "Sitemap: https://www.example.com/sitemap.xml\n";
  r += "Sitemap: https://www.example.com/news-sitemap.xml\n";
  return r;
}

std::vector<std::string> make_robots_paths(std::size_t count, std::uint64_t seed) {
  Rng rng(seed ^ 0x9A7A5ULL);
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::string_view section = kSections[rng.below(kSections.size())];
    switch (i % 8) {
      case 0: out.push_back("/" + std::string(section) + "/2023/05/" + slug(rng, 5)); break;
      case 1: out.push_back("/search?q=" + std::string(word(rng))); break;
      case 2: out.push_back("/" + std::string(section) + "/" + slug(rng, 2) + "?sessionid=12345&x=1"); break;
      case 3: out.push_back("/files/" + slug(rng, 2) + ".pdf"); break;
      case 4: out.push_back("/wiki/" + slug(rng, 2)); break;
      case 5: out.push_back("/" + std::string(section) + "/archive/" + std::to_string(1990 + rng.below(30)) + "/index.html"); break;
      case 6: out.push_back("/tag/caf%c3%a9?page=" + std::to_string(rng.below(20))); break;
      default: out.push_back("/" + std::string(section) + "/" + slug(rng, 3) + "/"); break;
    }
  }
  return out;
}

}  // namespace bench
