// `actorcrawl export` end to end: a crawl of a small test web whose titles
// hold quotes, `<&>`, commas and formulas, exported by the built binary in
// every format, then read by tools that are not ours (networkx for GraphML
// and GEXF, Graphviz for DOT, jq for JSON Lines, Python's csv module) and
// compared with the database (tests/integration/export_readers/); a
// database of hostile text read back from CSV and DOT byte for byte, and
// hostile items from items and items-csv; and outputs that would write over
// the database, refused.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/store/crawl_store.h"
#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;

namespace {

struct Run {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs a shell command; its output is collected through a file.
Run shell(const std::string& command, const std::string& log) {
  const int status = std::system((command + " >" + log + " 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return Run{WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

// The Debian interpreter, whose python3-networkx the test extras install.
std::string python() { return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

std::string reader(const std::string& script) {
  return python() + " " + std::string{ACTORCRAWL_SOURCE_DIR} + "/tests/integration/export_readers/" + script;
}

// Exports `db` with the built binary into the scratch directory, as
// `<stem>[_<graph>].<format>`; REQUIREs that it worked.
std::string exported(const ScratchDir& dir, const std::string& db, const std::string& stem, const std::string& format,
                     const std::string& graph = "") {
  const std::string file = dir.path(stem + (graph.empty() ? "" : "_" + graph) + "." + format);
  const auto run = shell(std::string{ACTORCRAWL_BINARY} + " export --db " + db + " --format " + format +
                           (graph.empty() ? "" : " --graph " + graph) + " --output " + file,
                         dir.path("export.log"));
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  REQUIRE(std::filesystem::exists(file));
  return file;
}

// Runs a reader script's command line; CHECKs that it found the file right.
void check_reader(const ScratchDir& dir, const std::string& command) {
  const auto run = shell(command, dir.path("reader.log"));
  INFO(command << "\n" << run.output);
  CHECK(run.exit_code == 0);
}

// Three hosts: a links b, its own /about (nofollow: recorded, not followed)
// and a host outside the crawl (recorded, never fetched); b links a and c;
// c links a.
std::string hostile_web(LoopbackWeb& web) {
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  auto c = web.add_host("127.0.0.3");
  web.route(a, "/",
            html("<!doctype html><html><head><title>Tom &amp; \"Jerry\", &lt;b&gt;bold&lt;/b&gt;</title></head><body>"
                 "<a href=\"" + LoopbackWeb::url(b, "/") + "\">b</a> <a rel=\"nofollow\" href=\"/about\">about</a> "
                 "<a href=\"http://outside.invalid/x?a=1&amp;b=2\">out</a></body></html>"));
  web.route(a, "/about", html(page("About", {})));
  web.route(b, "/", html(page("=1+2, \"quoted\"", {LoopbackWeb::url(a, "/"), LoopbackWeb::url(c, "/")})));
  web.route(c, "/", html(page("Caf\xC3\xA9 \xE2\x80\x93 \xC3\xBCn\xC3\xAF" "code", {LoopbackWeb::url(a, "/")})));
  return LoopbackWeb::url(a, "/");
}

}  // namespace

TEST_CASE("export: every format, read by outside tools, matches the database", "[integration][export]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto config = fast_config(dir, hostile_web(web));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2", "127.0.0.3"};
  crawl(config);
  const std::string db = config.db_path;
  REQUIRE(count(db, "SELECT COUNT(*) FROM pages") == 3);
  REQUIRE(count(db, "SELECT COUNT(*) FROM links WHERE to_url LIKE 'http://outside.invalid/%'") == 1);
  REQUIRE(count(db, "SELECT COUNT(*) FROM links WHERE nofollow = 1") == 1);

  const std::string bin = ACTORCRAWL_BINARY;
  const auto check = [&](const std::string& command) { check_reader(dir, command); };
  const auto export_as = [&](const std::string& format, const std::string& graph = "") {
    return exported(dir, db, "crawl", format, graph);
  };

  check(reader("check_pages.py") + " " + db + " " + export_as("jsonl") + " " + export_as("csv"));
  for (const std::string graph : {"domains", "pages"}) {
    check(reader("check_graph.py") + " " + db + " " + export_as("graphml", graph) + " graphml " + graph);
    check(reader("check_graph.py") + " " + db + " " + export_as("gexf", graph) + " gexf " + graph);
  }
  check(reader("check_dot.py") + " " + db + " " + export_as("dot", "domains") + " domains " + dir.path("domains.svg"));
  // The page graph renders too: 3 pages and the 2 targets never fetched.
  check(reader("check_dot.py") + " " + db + " " + export_as("dot", "pages") + " pages " + dir.path("pages.svg"));
  CHECK(count(db, "SELECT COUNT(*) FROM pages") + count(db, "SELECT COUNT(DISTINCT to_url) FROM links WHERE to_url "
                                                              "NOT IN (SELECT url FROM pages)") == 5);

  // stdout is the same bytes as the file.
  const auto to_stdout = shell(bin + " export --db " + db + " --format jsonl", dir.path("stdout.jsonl"));
  std::ifstream file(dir.path("crawl.jsonl"));
  std::stringstream written;
  written << file.rdbuf();
  CHECK(to_stdout.exit_code == 0);
  CHECK(to_stdout.output == written.str());
}

namespace {

// Text no crawl of a test web stores, written to the database by the store
// itself: each is a page's URL, title, description and final URL, its host
// key, and (if it is UTF-8) the target of a link no page was fetched for.
const std::vector<std::string> kHostileTexts = {
  "'=1+1",
  "''x",
  "'",
  "=cmd|' /C calc'!A0",
  "+1",
  "-1",
  "@x",
  "\tleading tab",
  "\rleading CR",
  "line\nfeed and CR\rLF\r\n",
  "DEL\x7F C1\xC2\x80\xC2\x85\xC2\x9F no-break space\xC2\xA0",
  std::string{"NUL\0inside", 10},
  "\x01\x1F C0",
  "say \"hi\", you",
  "not UTF-8: \xFF\xFE \xC0\xAF \xED\xA0\x80 \xE2\x82",
  "ends in a backslash\\",
  "c:\\dir\\\\",
  "backslash\\\"quote",
  "backslash\\\nnewline",
  "\n",
  "\"\n\"",
  "\n\nx",
  "http://h.test/ok?a=1,2&b=\"3\"",
};

}  // namespace

TEST_CASE("export: hostile text comes back from CSV (Python's csv) and DOT (Graphviz) as the database holds it",
          "[integration][export]") {
  ScratchDir dir;
  const std::string db = dir.path("hostile.db");
  {
    CrawlStore store(db);
    for (std::size_t i = 0; i < kHostileTexts.size(); ++i) {
      const std::string& text = kHostileTexts[i];
      const std::string& next = kHostileTexts[(i + 1) % kHostileTexts.size()];
      PageRow p;
      p.url = text;
      p.host_key = text;
      p.status_code = 200;
      p.depth = static_cast<std::int32_t>(i);
      p.title = text;
      p.description = text;
      p.final_url = text;
      p.content_type = text;
      // A page's links are kept as one JSON text (docs/schema.md), so their
      // targets are UTF-8: the text that is not is a page's URL, title and
      // host key here, never a link's target (no crawl makes one: a link is
      // a normalized URL, ASCII).
      const auto utf8 = [](const std::string& t) { return t.find("not UTF-8") == std::string::npos; };
      if (utf8(next))
        p.links.push_back({next, i % 2 == 1});
      if (utf8(text))
        p.links.push_back({"unfetched " + text, false});
      p.link_host_keys = {next};
      store.record_page(p);
    }
    store.flush();
  }
  REQUIRE(count(db, "SELECT COUNT(*) FROM pages") == static_cast<std::int64_t>(kHostileTexts.size()));
  REQUIRE(count(db, "SELECT COUNT(*) FROM pages WHERE title = CAST(X'4E554C00696E73696465' AS TEXT)") == 1);

  check_reader(dir, reader("check_pages.py") + " " + db + " " + exported(dir, db, "hostile", "jsonl") + " " +
                      exported(dir, db, "hostile", "csv"));
  for (const std::string graph : {"domains", "pages"})
    check_reader(dir, reader("check_dot.py") + " " + db + " " + exported(dir, db, "hostile", "dot", graph) + " " +
                        graph + " " + dir.path(graph + ".svg"));
}

namespace {

// A crawl database whose items hold kHostileTexts as values, as nested
// values and as keys, with keys that come and go from item to item (one
// named `url`), numbers, booleans and nulls; products and reviews
// interleaved. Written by the store, as a crawl's processors would.
std::string hostile_items_db(const ScratchDir& dir) {
  using ordered_json = nlohmann::ordered_json;
  const std::string db = dir.path("items.db");
  CrawlStore store(db);
  for (std::size_t i = 0; i < kHostileTexts.size(); ++i) {
    const std::string& text = kHostileTexts[i];
    PageRow p;
    p.url = "http://h.test/" + std::to_string(i) + "?q=" + text;
    p.host_key = "h.test";
    p.fetched_at_ms = static_cast<std::int64_t>(i);
    ordered_json product = ordered_json::object();
    product["name"] = text;
    if (i % 3 != 0)
      product["price"] = i % 2 ? ordered_json(static_cast<double>(i) + 0.25) : ordered_json(-static_cast<int>(i));
    product["in_stock"] = i % 2 == 0;
    product["nested"] = ordered_json{{"text", text}, {"list", ordered_json::array({text, i, nullptr})}};
    if (i % 4 == 1)
      product["url"] = text;
    if (i % 5 == 2)
      product[text] = "keyed by hostile text";
    product["note"] = nullptr;
    const auto text_of = [](const ordered_json& j) {
      return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
    };
    p.items = {{"product", text_of(product)}, {"review", text_of(ordered_json{{"stars", i % 5}, {"text", text}})}};
    store.record_page(p);
  }
  store.flush();
  return db;
}

}  // namespace

TEST_CASE("export: items and items-csv, read by Python's json and csv, match the items table",
          "[integration][export]") {
  ScratchDir dir;
  const std::string db = hostile_items_db(dir);
  REQUIRE(count(db, "SELECT COUNT(*) FROM items WHERE kind = 'product'") ==
          static_cast<std::int64_t>(kHostileTexts.size()));
  const std::string bin = ACTORCRAWL_BINARY;
  const auto export_to = [&](const std::string& args, const std::string& file) {
    const auto run = shell(bin + " export --db " + db + " " + args + " --output " + dir.path(file),
                           dir.path("export.log"));
    INFO(args << ": " << run.output);
    CHECK(run.exit_code == 0);
    CHECK(run.output.empty());
    return dir.path(file);
  };
  check_reader(dir, reader("check_items.py") + " " + db + " " + export_to("--format items", "all.jsonl") +
                      " product " + export_to("--format items --kind product", "product.jsonl") + " " +
                      export_to("--format items-csv --kind product", "product.csv"));

  // A kind the database does not hold: said on stderr, and an empty export.
  auto r = shell(bin + " export --db " + db + " --format items-csv --kind article --output " +
                   dir.path("article.csv"),
                 dir.path("article.log"));
  CHECK(r.exit_code == 0);
  CHECK(r.output == "actorcrawl export: no items of kind 'article' in the database (its kinds: product, review); "
                    "the export is empty\n");
  std::ifstream article(dir.path("article.csv"));
  std::stringstream header;
  header << article.rdbuf();
  CHECK(header.str() == "url\r\n");

  // items-csv without a kind: a usage error naming the kinds.
  r = shell(bin + " export --db " + db + " --format items-csv", dir.path("nokind.log"));
  CHECK(r.exit_code == 2);
  CHECK(r.output == "actorcrawl export: items-csv is one kind's items, its fields the columns: --kind KIND is "
                    "required; kinds in the database: product, review (see actorcrawl export --help)\n");
}

TEST_CASE("export: bad input is named, exits 2 or 1, and leaves no file", "[integration][export]") {
  ScratchDir dir;
  const std::string bin = ACTORCRAWL_BINARY;
  const auto run = [&](const std::string& args) { return shell(bin + " export " + args, dir.path("out.log")); };
  const auto out = dir.path("out.graphml");

  auto r = run("--db " + dir.path("missing.db") + " --format graphml --output " + out);
  CHECK(r.exit_code == 1);
  CHECK(r.output == "actorcrawl export: database error: no database at '" + dir.path("missing.db") + "'\n");

  std::ofstream(dir.path("notes.txt")) << "not a database, only text that is long enough to be read\n";
  r = run("--db " + dir.path("notes.txt") + " --format graphml --output " + out);
  CHECK(r.exit_code == 1);
  CHECK(r.output == "actorcrawl export: database error: '" + dir.path("notes.txt") +
                      "' is not a crawl database: file is not a database\n");
  CHECK_FALSE(std::filesystem::exists(out));

  r = run("--db x.db --format xml");
  CHECK(r.exit_code == 2);
  CHECK(r.output ==
        "actorcrawl export: unknown format 'xml' (formats: jsonl, csv, graphml, gexf, dot, items, items-csv, changes) (see "
        "actorcrawl export --help)\n");
  r = run("--db x.db --format dot --graph hosts");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "actorcrawl export: unknown graph 'hosts' (graphs: domains, pages) (see actorcrawl export --help)\n");
  r = run("--db x.db --format csv --graph pages");
  CHECK(r.exit_code == 2);
  r = run("--format csv");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "actorcrawl export: --db FILE is required (see actorcrawl export --help)\n");
  // --kind and --graph each belong to their formats; one kind an export.
  r = run("--db x.db --format csv --kind product");
  CHECK(r.exit_code == 2);
  CHECK(r.output ==
        "actorcrawl export: --kind applies to items and items-csv, not to csv (see actorcrawl export --help)\n");
  r = run("--db x.db --format items --graph pages");
  CHECK(r.exit_code == 2);
  CHECK(r.output ==
        "actorcrawl export: --graph applies to graphml, gexf and dot, not to items (see actorcrawl export --help)\n");
  r = run("--db x.db --format items --kind a --kind b");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "actorcrawl export: --kind is given once: an export holds one kind, or every kind without "
                    "--kind (see actorcrawl export --help)\n");
  // items-csv without --kind is a usage error even when the database
  // cannot be read (its kinds are then not named).
  r = run("--db " + dir.path("missing.db") + " --format items-csv --output " + out);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "actorcrawl export: items-csv is one kind's items, its fields the columns: --kind KIND is "
                    "required (see actorcrawl export --help)\n");
  CHECK_FALSE(std::filesystem::exists(out));

  // An output that cannot be written: named, and nothing left behind.
  {
    LoopbackWeb web;
    auto h = web.add_host("127.0.0.1");
    web.route(h, "/", html(page("Only", {})));
    crawl(fast_config(dir, LoopbackWeb::url(h, "/")));
  }
  r = run("--db " + dir.path("crawl.db") + " --format csv --output " + dir.path("no/such/dir.csv"));
  CHECK(r.exit_code == 1);
  CHECK(r.output == "actorcrawl export: cannot write '" + dir.path("no/such/dir.csv") +
                      "': No such file or directory\n");
  r = run("--db " + dir.path("crawl.db") + " --format csv --output " + dir.path("pages.csv"));
  CHECK(r.exit_code == 0);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path("")))
    CHECK(entry.path().filename().string().find(".partial-") == std::string::npos);
  // A device is written in place, never replaced by a renamed file.
  r = run("--db " + dir.path("crawl.db") + " --format csv --output /dev/null");
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::is_character_file("/dev/null"));

  r = shell(bin + " export --help", dir.path("help.log"));
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("usage: actorcrawl export --db FILE --format FORMAT") == 0);
  r = shell(bin + " --help", dir.path("help.log"));
  CHECK(r.output.find("actorcrawl export --db FILE --format jsonl|csv|graphml|gexf|dot|items|items-csv") !=
        std::string::npos);
}

TEST_CASE("export: an output that is the database or one of its files is refused, however it is spelled",
          "[integration][export]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto host = web.add_host("127.0.0.1");
  web.route(host, "/", html(page("Only", {})));
  crawl(fast_config(dir, LoopbackWeb::url(host, "/")));
  const std::string db = dir.path("crawl.db");
  const auto bytes_of = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string before = bytes_of(db);
  REQUIRE_FALSE(before.empty());
  std::filesystem::create_hard_link(db, dir.path("hard.csv"));
  std::filesystem::create_symlink(db, dir.path("link.csv"));
  std::filesystem::create_symlink("crawl.db-wal", dir.path("wal-link.csv"));

  const std::string bin = ACTORCRAWL_BINARY;
  // `cd` first, so that relative spellings are tried too.
  const auto in_dir = [&](const std::string& command) {
    return shell("cd '" + dir.path("") + "' && " + command, dir.path("refused.log"));
  };
  const std::pair<std::string, std::string> refused[] = {
    {"crawl.db", "the crawl database 'crawl.db'"},
    {"./crawl.db", "the crawl database 'crawl.db'"},
    {db, "the crawl database 'crawl.db'"},
    {"hard.csv", "the crawl database 'crawl.db'"},
    {"link.csv", "the crawl database 'crawl.db'"},
    {"crawl.db-wal", "the crawl database's write-ahead log 'crawl.db-wal'"},
    {"wal-link.csv", "the crawl database's write-ahead log 'crawl.db-wal'"},
    {"crawl.db-shm", "the crawl database's shared-memory index 'crawl.db-shm'"},
    {"crawl.db.lock", "the crawl database's lock file 'crawl.db.lock'"},
  };
  for (const auto& [output, what] : refused) {
    for (const std::string format : {"csv", "dot"}) {
      const auto r = in_dir(bin + " export --db crawl.db --format " + format + " --output " + output);
      INFO(output << ": " << r.output);
      CHECK(r.exit_code == 2);
      CHECK(r.output == "actorcrawl export: --output '" + output + "' is " + what +
                          "; an export never writes over it (choose another file)\n");
    }
  }
  // Stdout appended to the database, too (in braces: shell() sends the
  // command's own output to its log).
  auto r = in_dir("{ " + bin + " export --db crawl.db --format jsonl >>crawl.db; }");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "actorcrawl export: stdout is the crawl database 'crawl.db'; an export never writes over it "
                    "(choose another file)\n");

  // A crawl's trace and metrics.log are refused the same way, before the
  // crawl starts.
  const std::string seed = LoopbackWeb::url(host, "/");
  r = in_dir(bin + " crawl --quiet --seed " + seed + " --db crawl.db --trace ./crawl.db");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "actorcrawl: configuration error: trace_path './crawl.db' is the crawl database 'crawl.db'; "
                    "writing it would destroy the crawl (choose another file)\n");
  r = in_dir(bin + " crawl --quiet --seed " + seed + " --db crawl.db --metrics hard.csv");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "actorcrawl: configuration error: metrics_path 'hard.csv' is the crawl database 'crawl.db'; "
                    "writing it would destroy the crawl (choose another file)\n");

  // Nothing was written: the database is what the crawl left, no WAL
  // appeared, and it still opens as a crawl.
  CHECK(bytes_of(db) == before);
  CHECK_FALSE(std::filesystem::exists(db + "-wal"));
  CHECK_FALSE(std::filesystem::exists(db + ".lock"));
  CHECK(count(db, "SELECT COUNT(*) FROM pages") == 1);
  r = in_dir(bin + " export --db crawl.db --format csv --output pages.csv");
  CHECK(r.exit_code == 0);
}
