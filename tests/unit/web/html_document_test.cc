#include "core/web/html_document.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace actorcrawl {
namespace {

std::vector<std::string> hrefs(const HtmlDocument& doc) {
  std::vector<std::string> out;
  for (const HtmlLink& link : doc.links) out.push_back(link.href);
  return out;
}

std::string repeat(const std::string& s, int times) {
  std::string out;
  out.reserve(s.size() * times);
  for (int i = 0; i < times; ++i) out += s;
  return out;
}

// Structural UTF-8 check: lead byte, right number of continuation bytes.
bool is_valid_utf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t extra = 0;
    if (c < 0x80) {
      extra = 0;
    } else if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
      extra = 1;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
    } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
      extra = 3;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace

TEST_CASE("html: title whitespace is collapsed and entities decoded", "[html]") {
  const HtmlDocument doc = parse_html(
      "<html><head><title>\n   Fish &amp;\t\t Chips &lt;3  \r\n</title></head></html>");
  CHECK(doc.title == "Fish & Chips <3");
}

TEST_CASE("html: missing title is empty", "[html]") {
  CHECK(parse_html("<html><head></head><body><p>hi</p></body></html>").title.empty());
  CHECK(parse_html("<title></title>").title.empty());
  CHECK(parse_html("<title>  \n </title>").title.empty());
}

TEST_CASE("html: the first of two titles wins", "[html]") {
  CHECK(parse_html("<title>First</title><title>Second</title>").title == "First");
  // An empty first title is still the title, as in browsers.
  CHECK(parse_html("<title></title><title>Second</title>").title.empty());
}

TEST_CASE("html: a title in the body counts", "[html]") {
  CHECK(parse_html("<html><body><p>text</p><title> Late  title </title></body></html>").title ==
        "Late title");
}

TEST_CASE("html: an SVG title is not the page title", "[html]") {
  CHECK(parse_html("<body><svg><title>icon</title></svg><title>Real</title>").title == "Real");
}

TEST_CASE("html: meta description variants", "[html]") {
  CHECK(parse_html("<meta name=\"description\" content=\"A page.\">").description == "A page.");
  CHECK(parse_html("<META NAME=Description CONTENT=\"  Upper\n  case  \">").description ==
        "Upper case");
  CHECK(parse_html("<meta name=\"DESCRIPTION\" content=\"Tom &amp; Jerry\">").description ==
        "Tom & Jerry");
  CHECK(parse_html("<meta name=\"description\" content=\"one\">"
                   "<meta name=\"description\" content=\"two\">")
            .description == "one");
  CHECK(parse_html("<meta name=\"keywords\" content=\"a, b\">").description.empty());
  CHECK(parse_html("<meta property=\"og:description\" content=\"og\">").description.empty());
  CHECK(parse_html("<meta name=\"description\">").description.empty());
}

TEST_CASE("html: the first base href is kept as written", "[html]") {
  CHECK(parse_html("<head><base href=\"/docs/\"><base href=\"/other/\"></head>").base_href ==
        "/docs/");
  CHECK(parse_html("<base target=\"_blank\"><base href=\" https://cdn.example.com/x/ \">")
            .base_href == "https://cdn.example.com/x/");
  CHECK(parse_html("<p>no base</p>").base_href.empty());
}

TEST_CASE("html: canonical is found among rel tokens", "[html]") {
  CHECK(parse_html("<link rel=\"Canonical alternate\" href=\"https://example.com/c\">").canonical ==
        "https://example.com/c");
  CHECK(parse_html("<link rel=\"alternate\" href=\"/alt\"><link rel=canonical href=\"/c\">")
            .canonical == "/c");
  CHECK(parse_html("<link rel=\"stylesheet\" href=\"/s.css\">").canonical.empty());
  CHECK(parse_html("<link rel=\"canonical-ish\" href=\"/x\">").canonical.empty());
  CHECK(parse_html("<link rel=canonical href=/first><link rel=canonical href=/second>")
            .canonical == "/first");
}

TEST_CASE("html: meta robots directives", "[html]") {
  SECTION("none means noindex and nofollow") {
    const HtmlDocument doc = parse_html("<meta name=\"robots\" content=\"none\">");
    CHECK(doc.meta_noindex);
    CHECK(doc.meta_nofollow);
  }
  SECTION("comma-separated list") {
    const HtmlDocument doc = parse_html("<meta name=\"robots\" content=\"noindex, nofollow\">");
    CHECK(doc.meta_noindex);
    CHECK(doc.meta_nofollow);
  }
  SECTION("upper case, one directive") {
    const HtmlDocument doc = parse_html("<META NAME=\"ROBOTS\" CONTENT=\"NOFOLLOW\">");
    CHECK_FALSE(doc.meta_noindex);
    CHECK(doc.meta_nofollow);
  }
  SECTION("space-separated, noindex only") {
    const HtmlDocument doc = parse_html("<meta name=robots content=\"noarchive noindex\">");
    CHECK(doc.meta_noindex);
    CHECK_FALSE(doc.meta_nofollow);
  }
  SECTION("index, follow is the default") {
    const HtmlDocument doc = parse_html("<meta name=\"robots\" content=\"index,follow\">");
    CHECK_FALSE(doc.meta_noindex);
    CHECK_FALSE(doc.meta_nofollow);
  }
  SECTION("several robots tags add up") {
    const HtmlDocument doc = parse_html(
        "<meta name=robots content=noindex><meta name=robots content=nofollow>");
    CHECK(doc.meta_noindex);
    CHECK(doc.meta_nofollow);
  }
  SECTION("other names are not robots") {
    const HtmlDocument doc = parse_html("<meta name=\"description\" content=\"none, nofollow\">");
    CHECK_FALSE(doc.meta_noindex);
    CHECK_FALSE(doc.meta_nofollow);
  }
}

TEST_CASE("html: links keep document order and are not resolved or deduplicated", "[html]") {
  const HtmlDocument doc = parse_html(
      "<body><a href=\"/one\">1</a><p><a href=\"two.html\">2</a></p>"
      "<div><div><a href=\"https://other.example/three\">3</a></div></div>"
      "<a href=\"/one\">again</a><a name=\"anchor-without-href\">x</a></body>");
  CHECK(hrefs(doc) ==
        std::vector<std::string>{"/one", "two.html", "https://other.example/three", "/one"});
}

TEST_CASE("html: rel nofollow, ugc and sponsored", "[html]") {
  const HtmlDocument doc = parse_html(
      "<a href=/plain>p</a>"
      "<a href=/nofollow rel=nofollow>n</a>"
      "<a href=/ugc rel=\"UGC\">u</a>"
      "<a href=/sponsored rel=\"external sponsored\">s</a>"
      "<a href=/noopener rel=\"noopener noreferrer\">o</a>"
      "<a href=/mixed rel=\"noopener NoFollow\">m</a>"
      "<a href=/lookalike rel=\"nofollower\">l</a>");
  REQUIRE(doc.links.size() == 7);
  CHECK_FALSE(doc.links[0].nofollow);
  CHECK(doc.links[1].nofollow);
  CHECK(doc.links[2].nofollow);
  CHECK(doc.links[3].nofollow);
  CHECK_FALSE(doc.links[4].nofollow);
  CHECK(doc.links[5].nofollow);
  CHECK_FALSE(doc.links[6].nofollow);
}

TEST_CASE("html: area href is a link", "[html]") {
  const HtmlDocument doc = parse_html(
      "<img usemap=#m><map name=m>"
      "<area shape=rect coords=0,0,1,1 href=\"/region\">"
      "<area shape=rect coords=1,1,2,2 href=\"/paid\" rel=sponsored>"
      "<area shape=default nohref>"
      "</map><a href=/after>a</a>");
  REQUIRE(doc.links.size() == 3);
  CHECK(doc.links[0].href == "/region");
  CHECK_FALSE(doc.links[0].nofollow);
  CHECK(doc.links[1].href == "/paid");
  CHECK(doc.links[1].nofollow);
  CHECK(doc.links[2].href == "/after");
}

TEST_CASE("html: unfetchable hrefs are dropped, empty and fragment hrefs are kept for the base URL", "[html]") {
  const HtmlDocument doc = parse_html(
      "<a href=\"javascript:void(0)\">j</a>"
      "<a href=\"  JavaScript:alert(1)\">j2</a>"
      "<a href=\"mailto:someone@example.com\">m</a>"
      "<a href=\"MAILTO:x@example.com\">m2</a>"
      "<a href=\"tel:+123456\">t</a>"
      "<a href=\"data:text/html,hi\">d</a>"
      "<a href=\"#top\">f</a>"
      "<a href=\"  #\">f2</a>"
      "<a href=\"  \">blank</a>"
      "<a href=\"\">empty</a>"
      "<a>no href</a>"
      "<a href=\"  /kept \n\">k</a>"
      "<a href=\"page.html#section\">k2</a>"
      "<a href=\"?q=1\">k3</a>"
      "<a href=\"//cdn.example.com/x\">k4</a>"
      "<a href=\"javascript-guide.html\">k5</a>");
  // href="", "#top": the document's base URL (select_links drops them
  // when that is the page itself).
  CHECK(hrefs(doc) == std::vector<std::string>{"#top", "#", "", "", "/kept", "page.html#section", "?q=1",
                                                "//cdn.example.com/x", "javascript-guide.html"});
}

TEST_CASE("html: the first title, base, description and canonical in tree order, foster parenting included",
          "[html]") {
  // An element met in a table's structure goes before the table in the
  // tree: it comes before whatever the table holds, as document.title does.
  for (const HtmlParser parser : {HtmlParser::fast, HtmlParser::html5}) {
    INFO(to_string(parser));
    const HtmlDocument moved = parse_html(
        "<table><tr><td><title>In the cell</title><base href=/cell/><meta name=description content=cell>"
        "<link rel=canonical href=/cell></td><title>Before the table</title><base href=/before/>"
        "<meta name=description content=before><link rel=canonical href=/before></table>",
        parser);
    CHECK(moved.title == "Before the table");
    CHECK(moved.base_href == "/before/");
    CHECK(moved.description == "before");
    CHECK(moved.canonical == "/before");
    // Two moved out of one table keep their order; one before the table
    // stays first; one moved out of an inner table goes before that table
    // only, after a title in the outer table's cell that came first.
    CHECK(parse_html("<table><title>A</title><title>B</title></table>", parser).title == "A");
    CHECK(parse_html("<title>Head</title><table><tr><td><title>C</title></td><title>D</title></table>", parser).title ==
          "Head");
    CHECK(parse_html("<table><tr><td><title>Outer</title><table><title>Inner</title></table></td></tr></table>",
                     parser)
            .title == "Outer");
    CHECK(parse_html("<table><tr><td><table><tr><td><title>Deep</title></td></tr></table></td></tr>"
                     "<title>Out</title></table>",
                     parser)
            .title == "Out");
  }
}

TEST_CASE("html: CDATA at an integration point moved out of a table does not abort gumbo", "[html]") {
  // gumbo 0.10 asserts (and aborts the process) on these: the html5 parser
  // reads such pages with the fast parser (html_tree_parser.cc); a crawl
  // must survive any page.
  for (const char* page : {"<table><math><mi><![CDATA[T]]>e<a href=/after>x</a>",
                           "<table><svg><desc><![CDATA[T]]>e<a href=/after>x</a>",
                           "<table><svg><foreignObject><![CDATA[T]]>e<a href=/after>x</a>",
                           "<table><math><annotation-xml encoding=text/html><![CDATA[T]]>e<a href=/after>x</a>",
                           "<![CDATA[><table><math><mi><![CDATA[\\]]>l<a href=/after>x</a>",
                           "<!----!><table><math><mi><![CDATA[d]]>e<a href=/after>x</a>",
                           "<table><math><mi><meta><![CDATA[-]]>r<a href=/after>x</a>"}) {
    INFO(page);
    // Reached at all is the point; and the two parsers agree on the link.
    CHECK(hrefs(parse_html(page, HtmlParser::html5)) == hrefs(parse_html(page, HtmlParser::fast)));
  }
}

TEST_CASE("html: malformed markup parses like a browser", "[html]") {
  SECTION("unclosed tags and stray end tags") {
    const HtmlDocument doc = parse_html(
        "<html><head><title>Broken<body></div></div><p><b><i>text"
        "<a href=/1>one</div><ul><li><a href=/2>two<li><a href=/3>three");
    // <title> is raw text up to </title>, which never comes.
    CHECK(doc.title == "Broken<body></div></div><p><b><i>text<a href=/1>one</div><ul><li><a "
                       "href=/2>two<li><a href=/3>three");
    CHECK(doc.links.empty());
  }
  SECTION("same without the broken title") {
    const HtmlDocument doc = parse_html(
        "<html><head><title>Ok</title><body></div></div><p><b><i>text"
        "<a href=/1>one</div><ul><li><a href=/2>two<li><a href=/3>three");
    CHECK(doc.title == "Ok");
    CHECK(hrefs(doc) == std::vector<std::string>{"/1", "/2", "/3"});
  }
  SECTION("an <a> inside an <a> closes the first") {
    const HtmlDocument doc =
        parse_html("<a href=/outer>outer <a href=/inner rel=nofollow>inner</a> tail</a>");
    REQUIRE(doc.links.size() == 2);
    CHECK(doc.links[0].href == "/outer");
    CHECK_FALSE(doc.links[0].nofollow);
    CHECK(doc.links[1].href == "/inner");
    CHECK(doc.links[1].nofollow);
  }
  SECTION("unquoted and oddly quoted attributes") {
    const HtmlDocument doc =
        parse_html("<a href=/a>a</a><a href='/b?x=\">'>b</a><a  HREF = \"/c\" >c</a>");
    CHECK(hrefs(doc) == std::vector<std::string>{"/a", "/b?x=\">", "/c"});
  }
  SECTION("markup inside scripts, styles and comments is not markup") {
    const HtmlDocument doc = parse_html(
        "<script>document.write('<a href=\"/fake1\">x</a>');</script>"
        "<style>/* <a href=/fake2> */</style>"
        "<!-- <a href=/fake3> -->"
        "<textarea><a href=/fake4></textarea>"
        "<a href=/real>r</a>");
    CHECK(hrefs(doc) == std::vector<std::string>{"/real"});
  }
}

TEST_CASE("html: deep nesting neither overflows the stack nor loses links", "[html]") {
  SECTION("100000 unclosed <div>s with a link at the bottom") {
    const HtmlDocument doc = parse_html(repeat("<div>", 100000) + "<a href=\"/bottom\">x</a>");
    CHECK(hrefs(doc) == std::vector<std::string>{"/bottom"});
  }
  SECTION("300000 unclosed <span>s") {
    const HtmlDocument doc =
        parse_html("<title>Deep</title>" + repeat("<span>", 300000) + "<a href=/bottom>x</a>");
    CHECK(doc.title == "Deep");
    CHECK(hrefs(doc) == std::vector<std::string>{"/bottom"});
  }
  SECTION("every level of a deep page keeps its link, in order") {
    std::string html = "<title>t</title>";
    for (int i = 0; i < 5000; ++i) {
      html += "<div class=\"level\"><a href=\"/" + std::to_string(i) + "\">" +
              std::to_string(i) + "</a>";
    }
    html += "<script>var s = '<a href=/fake>';</script><meta name=robots content=nofollow>";
    const HtmlDocument doc = parse_html(html);
    REQUIRE(doc.links.size() == 5000);
    for (int i = 0; i < 5000; ++i) CHECK(doc.links[i].href == "/" + std::to_string(i));
    CHECK(doc.title == "t");
    CHECK(doc.meta_nofollow);
  }
  SECTION("HTML inside <svg><foreignObject> counts toward the cap") {
    // There content is HTML again and "/>" closes nothing: each <section/>
    // opens an element. Uncounted, 300,000 of them made gumbo's tree builder
    // quadratic (minutes); counted, the page parses like any deep page.
    const HtmlDocument doc = parse_html("<svg><foreignObject>" + repeat("<section/>", 300000) +
                                        "<a href=\"/inside\">x</a></foreignObject></svg><a href=/after>y</a>");
    CHECK(hrefs(doc) == std::vector<std::string>{"/inside", "/after"});
  }
  SECTION("nested inline SVG") {
    const HtmlDocument doc =
        parse_html(repeat("<svg><g>", 50000) + "<a href=\"/svg-link\"><circle/></a>");
    CHECK(hrefs(doc) == std::vector<std::string>{"/svg-link"});
  }
}

TEST_CASE("html: binary garbage and invalid UTF-8 do not crash", "[html]") {
  SECTION("random bytes") {
    std::mt19937 rng(12345);
    std::uniform_int_distribution<int> byte(0, 255);
    std::string garbage(1 << 20, '\0');
    for (char& c : garbage) c = static_cast<char>(byte(rng));
    const HtmlDocument doc = parse_html(garbage);
    CHECK(is_valid_utf8(doc.title));
    for (const HtmlLink& link : doc.links) CHECK(is_valid_utf8(link.href));
  }
  SECTION("random markup characters") {
    std::mt19937 rng(777);
    static const char kAlphabet[] = "<>/=\"' abdiv!-\xff\xc3\x00&#;\n";
    const std::string alphabet(kAlphabet, sizeof kAlphabet - 1);  // keeps the NUL
    std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
    std::string soup(200000, ' ');
    for (char& c : soup) c = alphabet[pick(rng)];
    parse_html(soup);
  }
  SECTION("invalid sequences are replaced") {
    const std::string html =
        std::string("\xff\xfe<title>caf\xc3\x28 \xe2\x82 ok\xc0\xaf</title>") +
        "<a href=\"/\xf0\x28\x8c\xbc\">x</a>" + std::string("\0<p>\0</p>", 9);
    const HtmlDocument doc = parse_html(html);
    CHECK(is_valid_utf8(doc.title));
    CHECK(doc.title.rfind("caf", 0) == 0);
    REQUIRE(doc.links.size() == 1);
    CHECK(is_valid_utf8(doc.links[0].href));
  }
  SECTION("truncated markup at end of input") {
    CHECK(parse_html("<a href=\"/x").links.empty());
    CHECK(parse_html("<").links.empty());
    CHECK(parse_html("<!--").links.empty());
    CHECK(parse_html("<title>").title.empty());
  }
}

TEST_CASE("html: empty input", "[html]") {
  const HtmlDocument doc = parse_html("");
  CHECK(doc.title.empty());
  CHECK(doc.description.empty());
  CHECK(doc.base_href.empty());
  CHECK(doc.canonical.empty());
  CHECK_FALSE(doc.meta_noindex);
  CHECK_FALSE(doc.meta_nofollow);
  CHECK(doc.links.empty());
  CHECK(parse_html(std::string_view()).links.empty());
}

TEST_CASE("html: long title is cut at a UTF-8 boundary", "[html]") {
  // "a" shifts every two-byte "é" to an odd offset, so byte 999 is the lead
  // byte of an "é" and a plain 1000-byte cut would split it.
  const std::string title = "a" + repeat("\xc3\xa9", 2500);
  REQUIRE(title.size() == 5001);
  const HtmlDocument doc = parse_html("<title>" + title + "</title>");
  CHECK(doc.title.size() <= 1000);
  CHECK(is_valid_utf8(doc.title));
  CHECK(doc.title == "a" + repeat("\xc3\xa9", 499));
}

TEST_CASE("html: long title and description with other characters", "[html]") {
  SECTION("three-byte characters") {
    const HtmlDocument doc = parse_html("<title>" + repeat("\xe2\x82\xac", 2000) + "</title>");
    CHECK(doc.title == repeat("\xe2\x82\xac", 333));
  }
  SECTION("ASCII with a space at the cut is trimmed") {
    const HtmlDocument doc = parse_html("<title>" + repeat("x", 1000) + "  tail</title>");
    CHECK(doc.title == repeat("x", 1000));
  }
  SECTION("description is cut at 4000 bytes") {
    const HtmlDocument doc = parse_html("<meta name=description content=\"" + std::string("ab") +
                                        repeat("\xf0\x9f\x98\x80", 2000) + "\">");
    CHECK(doc.description.size() <= 4000);
    CHECK(is_valid_utf8(doc.description));
    CHECK(doc.description == "ab" + repeat("\xf0\x9f\x98\x80", 999));
  }
}

}  // namespace actorcrawl
