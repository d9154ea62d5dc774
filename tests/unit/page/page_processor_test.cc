#include "core/page/page_processor.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/web/url_fingerprint.h"

namespace actorcrawl {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "page_processor_test_XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string hex_name(const std::string& url, const char* ext) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(stable_url_hash(url)));
  return std::string(buf) + ext;
}

FetchedPage page(const std::string& url, std::string_view body, int status = 200,
                 const std::string& type = "text/html") {
  FetchedPage p;
  p.url = url;
  p.final_url = url;
  p.status_code = status;
  p.content_type = type;
  p.body = body;
  return p;
}

ProcessorChain chain_of(const std::vector<std::string>& names, const std::string& dir = "pages") {
  ProcessorChain::Options options;
  options.save_pages_dir = dir;
  std::string error;
  ProcessorChain chain = ProcessorChain::make(names, options, &error);
  INFO(error);
  REQUIRE(error.empty());
  REQUIRE(chain.size() == names.size());
  return chain;
}

// Every regular file below `root`, relative to it.
std::vector<std::string> files_below(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file())
      out.push_back(fs::relative(e.path(), root).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

const std::string kHtml =
    "<html><head><title>  Hello \n World </title>"
    "<meta name=description content=\"A  page\">"
    "<link rel=canonical href=\"/canon\">"
    "<base href=\"/b/\"></head>"
    "<body><a href=\"/a\">A</a> <a rel=\"nofollow\" href=\"/nf\">N</a>"
    "<a rel=\"ugc\" href=\"http://other.test/u\">U</a></body></html>";

}  // namespace

TEST_CASE("is_html", "[page_processor]") {
  CHECK(is_html("text/html"));
  CHECK(is_html("application/xhtml+xml"));
  CHECK_FALSE(is_html("text/plain"));
  CHECK_FALSE(is_html("application/json"));
  CHECK_FALSE(is_html("application/xml"));
  CHECK_FALSE(is_html(""));
}

TEST_CASE("html_links: a 2xx HTML page", "[page_processor]") {
  const ProcessorChain chain = chain_of({"html_links"});
  for (const char* type : {"text/html", "application/xhtml+xml"}) {
    for (int status : {200, 203, 299}) {
      INFO(type << " " << status);
      const PageAnalysis a = chain.run(page("http://www.example.com/", kHtml, status, type));
      CHECK(a.title == "Hello World");
      CHECK(a.description == "A page");
      CHECK(a.canonical == "/canon");
      CHECK(a.base_href == "/b/");
      CHECK(a.follow_links);
      REQUIRE(a.links.size() == 3);
      CHECK(a.links[0].href == "/a");
      CHECK_FALSE(a.links[0].nofollow);
      CHECK(a.links[1].href == "/nf");
      CHECK(a.links[1].nofollow);
      CHECK(a.links[2].href == "http://other.test/u");
      CHECK(a.links[2].nofollow);
      CHECK(a.saved_path.empty());
    }
  }
}

TEST_CASE("html_links: meta robots nofollow", "[page_processor]") {
  const ProcessorChain chain = chain_of({"html_links"});
  const std::string body =
      "<html><head><meta name=robots content=\"noindex, nofollow\"></head>"
      "<body><a href=\"/a\">A</a></body></html>";
  const PageAnalysis a = chain.run(page("http://www.example.com/", body));
  CHECK_FALSE(a.follow_links);
  // The links are still reported: the domain graph records them.
  REQUIRE(a.links.size() == 1);
  CHECK(a.links[0].href == "/a");
}

TEST_CASE("html_links: error pages and other media types are not parsed", "[page_processor]") {
  const ProcessorChain chain = chain_of({"html_links"});
  auto check_untouched = [](const PageAnalysis& a) {
    CHECK(a.title.empty());
    CHECK(a.description.empty());
    CHECK(a.canonical.empty());
    CHECK(a.base_href.empty());
    CHECK(a.follow_links);
    CHECK(a.links.empty());
  };
  for (int status : {0, 100, 199, 300, 301, 304, 404, 500, 503}) {
    INFO("status " << status);
    check_untouched(chain.run(page("http://www.example.com/", kHtml, status)));
  }
  for (const char* type : {"application/xml", "application/json", "image/png", "text/css"}) {
    INFO("type " << type);
    check_untouched(chain.run(page("http://www.example.com/", kHtml, 200, type)));
  }
  // Types a crawler sniffs are parsed only when the body is HTML by the
  // MIME Sniffing Standard's patterns.
  for (const char* type : {"text/plain", "application/octet-stream", ""}) {
    INFO("type " << type);
    check_untouched(chain.run(page("http://www.example.com/", "Plain words, then <a href=/x>", 200, type)));
  }
}

TEST_CASE("html_links: untyped, octet-stream and text/plain bodies that are HTML are parsed", "[page_processor]") {
  const ProcessorChain chain = chain_of({"html_links"});
  for (const char* type : {"text/plain", "application/octet-stream", "", "unknown/unknown"}) {
    INFO("type " << type);
    const PageAnalysis a = chain.run(page("http://www.example.com/", kHtml, 200, type));
    CHECK_FALSE(a.title.empty());
    CHECK_FALSE(a.links.empty());
  }
}

TEST_CASE("save_pages: writes the body under <dir>/<host>/<hash>.<ext>",
          "[page_processor]") {
  TempDir tmp;
  const fs::path dir = tmp.path() / "pages";
  const ProcessorChain chain = chain_of({"save_pages"}, dir.string());

  const std::string html_url = "http://www.example.com/a/page.html";
  PageAnalysis a = chain.run(page(html_url, kHtml));
  const fs::path html_file = dir / "www.example.com" / hex_name(html_url, ".html");
  CHECK(a.saved_path == html_file.string());
  CHECK(read_file(html_file) == kHtml);
  // save_pages alone does not parse.
  CHECK(a.links.empty());

  // Bodies are bytes, whatever they hold.
  const std::string binary("\x89PNG\r\n\x1a\n\0\0\0\x0d", 12);
  const std::string png_url = "http://www.example.com:8080/logo.png";
  a = chain.run(page(png_url, binary, 200, "image/png"));
  const fs::path png_file = dir / "www.example.com_8080" / hex_name(png_url, ".bin");
  CHECK(a.saved_path == png_file.string());
  CHECK(read_file(png_file) == binary);

  // The file is named after the requested URL, the directory after the host
  // the body came from.
  FetchedPage redirected = page("http://old.example.com/x", "moved here");
  redirected.final_url = "https://new.example.com/y";
  a = chain.run(redirected);
  CHECK(a.saved_path == (dir / "new.example.com" / hex_name("http://old.example.com/x", ".html")).string());

  // Saving the same URL again replaces the file.
  a = chain.run(page(html_url, "second version"));
  CHECK(a.saved_path == html_file.string());
  CHECK(read_file(html_file) == "second version");

  CHECK(files_below(tmp.path()) ==
        std::vector<std::string>{
            "pages/new.example.com/" + hex_name("http://old.example.com/x", ".html"),
            "pages/www.example.com/" + hex_name(html_url, ".html"),
            "pages/www.example.com_8080/" + hex_name(png_url, ".bin"),
        });
}

TEST_CASE("save_pages: an empty body writes nothing", "[page_processor]") {
  TempDir tmp;
  const fs::path dir = tmp.path() / "pages";
  const ProcessorChain chain = chain_of({"save_pages"}, dir.string());
  const PageAnalysis a = chain.run(page("http://www.example.com/", ""));
  CHECK(a.saved_path.empty());
  CHECK(files_below(tmp.path()).empty());
}

// The URL and host come from the network: whatever they say, every file
// lands exactly two levels below the directory.
TEST_CASE("save_pages: hostile URLs stay inside the directory", "[page_processor]") {
  TempDir tmp;
  const fs::path dir = tmp.path() / "pages";
  const ProcessorChain chain = chain_of({"save_pages"}, dir.string());

  struct Case {
    std::string final_url;
    std::string host_dir;
  };
  const std::string long_label(63, 'a');
  // The longest name DNS allows: 253 characters.
  const std::string longest_host =
      long_label + "." + long_label + "." + long_label + "." + std::string(61, 'b');
  REQUIRE(longest_host.size() == 253);
  const std::vector<Case> cases = {
      {"http://../x", "_"},
      {"http://./x", "_"},
      {"http://..", "_"},
      {"../../../etc/passwd", "_"},
      {"", "_"},
      {"http:///etc/passwd", "_"},
      {"http://a.test/../../etc/passwd", "a.test"},
      {"http://a.test/%2e%2e/%2e%2e/etc/passwd", "a.test"},
      {"http://..%2F..%2Fetc/", ".._2F.._2Fetc"},
      {"http://..\\..\\etc\\passwd/", ".._.._etc_passwd"},
      {"http://user:pw@evil.test:8080/", "user_pw_evil.test_8080"},
      {"http://a.test?x=/../../y", "a.test_x_"},
      {"http://\xc3\xa9vil.test/", "__vil.test"},
      {std::string("http://a\0b/", 11), "a_b"},
      {"http://" + longest_host + "/", longest_host},
      {"http://a.test/" + std::string(4000, 'x') + "/../../../../etc/passwd", "a.test"},
  };
  std::vector<std::string> expected;
  int i = 0;
  for (const Case& c : cases) {
    INFO("final_url " << c.final_url);
    // Distinct requested URLs, so every case gets its own file.
    const std::string url = "http://example.com/case" + std::to_string(i++);
    FetchedPage p = page(url, "body");
    p.final_url = c.final_url;
    const PageAnalysis a = chain.run(p);
    const fs::path want = dir / c.host_dir / hex_name(url, ".html");
    CHECK(a.saved_path == want.string());
    CHECK(read_file(want) == "body");
    expected.push_back("pages/" + c.host_dir + "/" + hex_name(url, ".html"));
  }
  std::sort(expected.begin(), expected.end());
  CHECK(files_below(tmp.path()) == expected);
}

TEST_CASE("save_pages: a host too long for a file name is not saved, nor saved elsewhere",
          "[page_processor]") {
  TempDir tmp;
  const fs::path dir = tmp.path() / "pages";
  const ProcessorChain chain = chain_of({"save_pages"}, dir.string());
  FetchedPage p = page("http://example.com/long", "body");
  p.final_url = "http://" + std::string(5000, 'h') + "/../../x";
  const PageAnalysis a = chain.run(p);
  if (!a.saved_path.empty()) {
    const fs::path saved(a.saved_path);
    CHECK(saved.parent_path().parent_path() == dir);
  }
  for (const std::string& f : files_below(tmp.path()))
    CHECK(f.rfind("pages/", 0) == 0);
}

TEST_CASE("ProcessorChain: both processors in order", "[page_processor]") {
  TempDir tmp;
  const fs::path dir = tmp.path() / "out";
  const ProcessorChain chain = chain_of({"html_links", "save_pages"}, dir.string());
  const PageAnalysis a = chain.run(page("http://www.example.com/", kHtml));
  CHECK(a.title == "Hello World");
  CHECK(a.links.size() == 3);
  CHECK(a.saved_path == (dir / "www.example.com" / hex_name("http://www.example.com/", ".html")).string());
  // An error page is saved, though not parsed.
  const PageAnalysis e = chain.run(page("http://www.example.com/missing", kHtml, 404));
  CHECK(e.links.empty());
  CHECK_FALSE(e.saved_path.empty());
}

TEST_CASE("ProcessorChain: names", "[page_processor]") {
  CHECK(ProcessorChain::known_names() == std::vector<std::string>{"html_links", "save_pages", "warc"});

  std::string error;
  ProcessorChain empty = ProcessorChain::make({}, ProcessorChain::Options{}, &error);
  CHECK(error.empty());
  CHECK(empty.size() == 0);

  ProcessorChain bad = ProcessorChain::make({"html_links", "links_html", "save_pages"},
                                            ProcessorChain::Options{}, &error);
  CHECK(error == "processors: unknown processor 'links_html' (known: html_links, save_pages, warc)");
  CHECK(bad.size() == 0);
  // An empty chain leaves the analysis at its defaults.
  const PageAnalysis a = bad.run(page("http://www.example.com/", kHtml));
  CHECK(a.links.empty());
  CHECK(a.saved_path.empty());

  // The error is optional.
  CHECK(ProcessorChain::make({"nope"}, ProcessorChain::Options{}, nullptr).size() == 0);
}


namespace {

// Records what it was handed.
struct RecordingArchive final : ResponseArchive {
  std::vector<std::string> uris;
  void archive(const HttpExchange& x) override { uris.push_back(x.target_uri); }
};

}  // namespace

TEST_CASE("warc: the chain names an archive, and refuses warc without one", "[page_processor][warc]") {
  std::string error;
  auto plain = ProcessorChain::make({"html_links"}, ProcessorChain::Options{}, &error);
  CHECK(error.empty());
  CHECK(plain.archive() == nullptr);
  ProcessorChain::make({"html_links", "warc"}, ProcessorChain::Options{}, &error);
  CHECK(error == "processors: warc has no archive to write to (warc_dir)");
  error.clear();
  auto archive = std::make_shared<RecordingArchive>();
  ProcessorChain::Options options;
  options.archive = archive;
  auto chain = ProcessorChain::make({"html_links", "warc"}, options, &error);
  CHECK(error.empty());
  CHECK(chain.archive() == archive.get());
  CHECK(chain.size() == 1);  // warc reads no page: it is not in the page chain
  CHECK(ProcessorChain::known_names() == std::vector<std::string>{"html_links", "save_pages", "warc"});
}

}  // namespace actorcrawl
