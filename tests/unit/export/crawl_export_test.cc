// Exports of a small crawl database built by the store itself: the exact
// bytes of every format, hostile page text and items, an empty crawl, and
// the errors.
#include "core/store/crawl_schema.h"
#include "core/export/crawl_export.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/store/crawl_schema.h"
#include "core/store/crawl_store.h"
#include "core/export/export_text.h"
#include "tests/unit/temp_database.h"

using namespace actorcrawl;
using testing::TempDbPath;

// U+REPLACEMENT CHARACTER, what an export writes for bytes that are not
// UTF-8 and for characters its format forbids.
#define U_FFFD "\xEF\xBF\xBD"

namespace {

// A title holding everything a format could choke on: quotes, a comma, a
// newline, `<&>`, a C0 control (0x01), a byte that is not UTF-8 (0xFF) and
// a backslash.
const std::string kHostileTitle = "Say \"hi\", <&>\nnext\x01 \xFF end\\";

// Two hosts, two pages: a.test/ links b.test/x, then a.test/about
// (nofollow, never fetched: a target without a page row); b.test/x failed
// and links back to a.test/.
void build_crawl(const std::string& path) {
  CrawlStore store(path);
  PageRow a;
  a.url = "http://a.test/";
  a.host_key = "a.test";
  a.status_code = 200;
  a.content_type = "text/html";
  a.title = kHostileTitle;
  a.description = "=HYPERLINK(\"http://evil\")";
  a.bytes = 1000;
  a.fetch_ms = 12;
  a.fetched_at_ms = 1700000000000;
  a.final_url = "http://a.test/";
  a.redirect_chain = R"([{"url":"http://a.test","status":301}])";
  a.links = {{"http://b.test/x", false}, {"http://a.test/about", true}};
  a.link_host_keys = {"b.test"};
  store.record_page(a);
  PageRow b;
  b.url = "http://b.test/x";
  b.host_key = "b.test";
  b.depth = 1;
  b.fetched_at_ms = 1700000000500;
  b.error = "http_500";
  b.status_code = 500;
  b.attempts = 3;
  b.links = {{"http://a.test/", false}};
  b.link_host_keys = {"a.test"};
  store.record_page(b);
  store.flush();
}

std::string export_of(const std::string& path, ExportFormat format, ExportGraph graph = ExportGraph::domains) {
  std::ostringstream out;
  CrawlExport(path).write(format, graph, out);
  return out.str();
}

ExportError::Kind failure_of(const std::string& path) {
  try {
    CrawlExport e(path);
  } catch (const ExportError& e) {
    return e.kind();
  }
  FAIL("no error for " << path);
  return ExportError::Kind::read_failed;
}

}  // namespace

TEST_CASE("export: jsonl, one line per page with its links in document order", "[store][export]") {
  TempDbPath db;
  build_crawl(db.str());
  CHECK(export_of(db.str(), ExportFormat::jsonl) ==
        "{\"url\":\"http://a.test/\",\"final_url\":\"http://a.test/\",\"status_code\":200,"
        "\"content_type\":\"text/html\",\"title\":\"Say \\\"hi\\\", <&>\\nnext\\u0001 " U_FFFD " end\\\\\","
        "\"description\":\"=HYPERLINK(\\\"http://evil\\\")\",\"depth\":0,\"fetched_at\":1700000000000,"
        "\"fetch_ms\":12,\"bytes\":1000,\"truncated\":false,\"attempts\":1,\"error\":null,"
        "\"redirect_chain\":[{\"url\":\"http://a.test\",\"status\":301}],\"canonical_url\":null,"
        "\"robots_directives\":null,\"links\":[{\"url\":\"http://b.test/x\",\"nofollow\":false},"
        "{\"url\":\"http://a.test/about\",\"nofollow\":true}],\"links_dropped\":0}\n"
        "{\"url\":\"http://b.test/x\",\"final_url\":null,\"status_code\":500,\"content_type\":null,"
        "\"title\":null,\"description\":null,\"depth\":1,\"fetched_at\":1700000000500,\"fetch_ms\":0,"
        "\"bytes\":0,\"truncated\":false,\"attempts\":3,\"error\":\"http_500\",\"redirect_chain\":null,"
        "\"canonical_url\":null,\"robots_directives\":null,\"links\":[{\"url\":\"http://a.test/\","
        "\"nofollow\":false}],\"links_dropped\":0}\n");
}

TEST_CASE("export: csv", "[store][export]") {
  TempDbPath db;
  build_crawl(db.str());
  CHECK(export_of(db.str(), ExportFormat::csv) ==
        "url,final_url,status_code,content_type,title,description,depth,fetched_at,fetch_ms,"
        "bytes,truncated,attempts,error,canonical_url,robots_directives,redirect_chain,links,"
        "links_dropped\r\n"
        "http://a.test/,http://a.test/,200,text/html,\"Say \"\"hi\"\", <&>\n"
        "next" U_FFFD " " U_FFFD " end\\\",\"'=HYPERLINK(\"\"http://evil\"\")\",0,1700000000000,"
        "12,1000,0,1,,,,\"[{\"\"url\"\":\"\"http://a.test\"\",\"\"status\"\":301}]\",2,0\r\n"
        "http://b.test/x,,500,,,,1,1700000000500,0,0,0,3,http_500,,,,1,0\r\n");
}

TEST_CASE("export: domain graph", "[store][export]") {
  TempDbPath db;
  build_crawl(db.str());
  CHECK(export_of(db.str(), ExportFormat::graphml) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n"
        "  <key id=\"n_crawl_count\" for=\"node\" attr.name=\"crawl_count\" attr.type=\"long\"/>\n"
        "  <key id=\"n_description\" for=\"node\" attr.name=\"description\" attr.type=\"string\"/>\n"
        "  <key id=\"e_weight\" for=\"edge\" attr.name=\"weight\" attr.type=\"long\"/>\n"
        "  <graph id=\"domains\" edgedefault=\"directed\">\n"
        "    <node id=\"a.test\"><data key=\"n_crawl_count\">1</data><data key=\"n_description\">Say &quot;hi&quot;,"
        " &lt;&amp;&gt;&#10;next" U_FFFD " " U_FFFD " end\\</data></node>\n"
        "    <node id=\"b.test\"><data key=\"n_crawl_count\">1</data></node>\n"
        "    <edge source=\"a.test\" target=\"b.test\"><data key=\"e_weight\">1</data></edge>\n"
        "    <edge source=\"b.test\" target=\"a.test\"><data key=\"e_weight\">1</data></edge>\n"
        "  </graph>\n"
        "</graphml>\n");
  CHECK(export_of(db.str(), ExportFormat::gexf) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<gexf xmlns=\"http://www.gexf.net/1.2draft\" version=\"1.2\">\n"
        "  <meta><creator>actorcrawl</creator><description>domains</description></meta>\n"
        "  <graph mode=\"static\" defaultedgetype=\"directed\">\n"
        "    <attributes class=\"node\">\n"
        "      <attribute id=\"0\" title=\"crawl_count\" type=\"long\"/>\n"
        "      <attribute id=\"1\" title=\"description\" type=\"string\"/>\n"
        "    </attributes>\n"
        "    <nodes>\n"
        "      <node id=\"a.test\" label=\"a.test\"><attvalues><attvalue for=\"0\" value=\"1\"/><attvalue for=\"1\" value=\"Say &quot;hi&quot;,"
        " &lt;&amp;&gt;&#10;next" U_FFFD " " U_FFFD " end\\\"/></attvalues></node>\n"
        "      <node id=\"b.test\" label=\"b.test\"><attvalues><attvalue for=\"0\" value=\"1\"/></attvalues></node>\n"
        "    </nodes>\n"
        "    <edges>\n"
        "      <edge id=\"0\" source=\"a.test\" target=\"b.test\" weight=\"1\"></edge>\n"
        "      <edge id=\"1\" source=\"b.test\" target=\"a.test\" weight=\"1\"></edge>\n"
        "    </edges>\n"
        "  </graph>\n"
        "</gexf>\n");
  CHECK(export_of(db.str(), ExportFormat::dot) ==
        "digraph \"domains\" {\n"
        "  \"a.test\" [crawl_count=\"1\", description=\"Say \\\"hi\\\", <&>\nnext\x01 " U_FFFD " end" U_FFFD "\"];\n"
        "  \"b.test\" [crawl_count=\"1\"];\n"
        "  \"a.test\" -> \"b.test\" [weight=1];\n"
        "  \"b.test\" -> \"a.test\" [weight=1];\n"
        "}\n");
}

TEST_CASE("export: page graph", "[store][export]") {
  TempDbPath db;
  build_crawl(db.str());
  CHECK(export_of(db.str(), ExportFormat::graphml, ExportGraph::pages) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n"
        "  <key id=\"n_crawled\" for=\"node\" attr.name=\"crawled\" attr.type=\"boolean\"/>\n"
        "  <key id=\"n_status_code\" for=\"node\" attr.name=\"status_code\" attr.type=\"long\"/>\n"
        "  <key id=\"n_depth\" for=\"node\" attr.name=\"depth\" attr.type=\"long\"/>\n"
        "  <key id=\"n_title\" for=\"node\" attr.name=\"title\" attr.type=\"string\"/>\n"
        "  <key id=\"e_nofollow\" for=\"edge\" attr.name=\"nofollow\" attr.type=\"boolean\"/>\n"
        "  <key id=\"e_position\" for=\"edge\" attr.name=\"position\" attr.type=\"long\"/>\n"
        "  <graph id=\"pages\" edgedefault=\"directed\">\n"
        "    <node id=\"http://a.test/\"><data key=\"n_crawled\">true</data><data key=\"n_status_code\">200</data><data key=\"n_depth\">0</data><data key=\"n_title\">Say &quot;hi&quot;,"
        " &lt;&amp;&gt;&#10;next" U_FFFD " " U_FFFD " end\\</data></node>\n"
        "    <node id=\"http://b.test/x\"><data key=\"n_crawled\">true</data><data key=\"n_status_code\">500</data><data key=\"n_depth\">1</data></node>\n"
        "    <node id=\"http://a.test/about\"><data key=\"n_crawled\">false</data></node>\n"
        "    <edge source=\"http://a.test/\" target=\"http://b.test/x\"><data key=\"e_nofollow\">false</data><data key=\"e_position\">0</data></edge>\n"
        "    <edge source=\"http://a.test/\" target=\"http://a.test/about\"><data key=\"e_nofollow\">true</data><data key=\"e_position\">1</data></edge>\n"
        "    <edge source=\"http://b.test/x\" target=\"http://a.test/\"><data key=\"e_nofollow\">false</data><data key=\"e_position\">0</data></edge>\n"
        "  </graph>\n"
        "</graphml>\n");
  CHECK(export_of(db.str(), ExportFormat::gexf, ExportGraph::pages) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<gexf xmlns=\"http://www.gexf.net/1.2draft\" version=\"1.2\">\n"
        "  <meta><creator>actorcrawl</creator><description>pages</description></meta>\n"
        "  <graph mode=\"static\" defaultedgetype=\"directed\">\n"
        "    <attributes class=\"node\">\n"
        "      <attribute id=\"0\" title=\"crawled\" type=\"boolean\"/>\n"
        "      <attribute id=\"1\" title=\"status_code\" type=\"long\"/>\n"
        "      <attribute id=\"2\" title=\"depth\" type=\"long\"/>\n"
        "      <attribute id=\"3\" title=\"title\" type=\"string\"/>\n"
        "    </attributes>\n"
        "    <attributes class=\"edge\">\n"
        "      <attribute id=\"0\" title=\"nofollow\" type=\"boolean\"/>\n"
        "      <attribute id=\"1\" title=\"position\" type=\"long\"/>\n"
        "    </attributes>\n"
        "    <nodes>\n"
        "      <node id=\"http://a.test/\" label=\"http://a.test/\"><attvalues><attvalue for=\"0\" value=\"true\"/><attvalue for=\"1\" value=\"200\"/><attvalue for=\"2\" value=\"0\"/><attvalue for=\"3\" value=\"Say &quot;hi&quot;,"
        " &lt;&amp;&gt;&#10;next" U_FFFD " " U_FFFD " end\\\"/></attvalues></node>\n"
        "      <node id=\"http://b.test/x\" label=\"http://b.test/x\"><attvalues><attvalue for=\"0\" value=\"true\"/><attvalue for=\"1\" value=\"500\"/><attvalue for=\"2\" value=\"1\"/></attvalues></node>\n"
        "      <node id=\"http://a.test/about\" label=\"http://a.test/about\"><attvalues><attvalue for=\"0\" value=\"false\"/></attvalues></node>\n"
        "    </nodes>\n"
        "    <edges>\n"
        "      <edge id=\"0\" source=\"http://a.test/\" target=\"http://b.test/x\"><attvalues><attvalue for=\"0\" value=\"false\"/><attvalue for=\"1\" value=\"0\"/></attvalues></edge>\n"
        "      <edge id=\"1\" source=\"http://a.test/\" target=\"http://a.test/about\"><attvalues><attvalue for=\"0\" value=\"true\"/><attvalue for=\"1\" value=\"1\"/></attvalues></edge>\n"
        "      <edge id=\"2\" source=\"http://b.test/x\" target=\"http://a.test/\"><attvalues><attvalue for=\"0\" value=\"false\"/><attvalue for=\"1\" value=\"0\"/></attvalues></edge>\n"
        "    </edges>\n"
        "  </graph>\n"
        "</gexf>\n");
  CHECK(export_of(db.str(), ExportFormat::dot, ExportGraph::pages) ==
        "digraph \"pages\" {\n"
        "  \"http://a.test/\" [crawled=\"true\", status_code=\"200\", depth=\"0\", title=\"Say \\\"hi\\\","
        " <&>\nnext\x01 " U_FFFD " end" U_FFFD "\"];\n"
        "  \"http://b.test/x\" [crawled=\"true\", status_code=\"500\", depth=\"1\"];\n"
        "  \"http://a.test/about\" [crawled=\"false\"];\n"
        "  \"http://a.test/\" -> \"http://b.test/x\" [nofollow=\"false\", position=\"0\"];\n"
        "  \"http://a.test/\" -> \"http://a.test/about\" [nofollow=\"true\", position=\"1\"];\n"
        "  \"http://b.test/x\" -> \"http://a.test/\" [nofollow=\"false\", position=\"0\"];\n"
        "}\n");
}

TEST_CASE("export: an empty crawl gives empty pages and an empty graph, still well-formed", "[store][export]") {
  TempDbPath db;
  { CrawlStore store(db.str()); }
  CHECK(export_of(db.str(), ExportFormat::jsonl).empty());
  CHECK(export_of(db.str(), ExportFormat::csv) ==
        "url,final_url,status_code,content_type,title,description,depth,fetched_at,fetch_ms,bytes,truncated,"
        "attempts,error,canonical_url,robots_directives,redirect_chain,links,links_dropped\r\n");
  CHECK(export_of(db.str(), ExportFormat::dot) == "digraph \"domains\" {\n}\n");
  const auto gexf = export_of(db.str(), ExportFormat::gexf, ExportGraph::pages);
  CHECK(gexf.find("    <nodes>\n    </nodes>\n    <edges>\n    </edges>\n  </graph>\n</gexf>\n") !=
        std::string::npos);
  const auto graphml = export_of(db.str(), ExportFormat::graphml);
  CHECK(graphml.find("  <graph id=\"domains\" edgedefault=\"directed\">\n  </graph>\n</graphml>\n") !=
        std::string::npos);
}

TEST_CASE("export: progress counts rows up to the total", "[store][export]") {
  TempDbPath db;
  build_crawl(db.str());
  std::vector<std::pair<std::int64_t, std::int64_t>> told;
  std::ostringstream out;
  CrawlExport(db.str()).write(ExportFormat::graphml, ExportGraph::domains, out,
                              [&](std::int64_t done, std::int64_t total) { told.emplace_back(done, total); });
  // 2 nodes + 2 edges: told at the start and at the end.
  CHECK(told == std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 4}, {4, 4}});
  told.clear();
  CrawlExport(db.str()).write(ExportFormat::dot, ExportGraph::pages, out,
                              [&](std::int64_t done, std::int64_t total) { told.emplace_back(done, total); });
  CHECK(told == std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 4}, {4, 4}});
}

TEST_CASE("export: an output that fails stops the export with write_failed", "[store][export]") {
  TempDbPath db;
  build_crawl(db.str());
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  try {
    CrawlExport(db.str()).write(ExportFormat::jsonl, ExportGraph::domains, out);
    FAIL("no error");
  } catch (const ExportError& e) {
    CHECK(e.kind() == ExportError::Kind::write_failed);
  }
}

TEST_CASE("export: what is not a crawl database is named as such", "[store][export]") {
  TempDbPath missing;
  CHECK(failure_of(missing.str()) == ExportError::Kind::missing_database);

  TempDbPath text;
  text.write("this is not a database, just text long enough to hold a header of one\n");
  CHECK(failure_of(text.str()) == ExportError::Kind::not_a_crawl_database);

  TempDbPath other;
  { SQLite::Database(other.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE).exec("CREATE TABLE t(x)"); }
  CHECK(failure_of(other.str()) == ExportError::Kind::not_a_crawl_database);

  TempDbPath newer;
  { CrawlStore store(newer.str()); }
  { SQLite::Database(newer.str(), SQLite::OPEN_READWRITE).exec("PRAGMA user_version = 99"); }
  CHECK(failure_of(newer.str()) == ExportError::Kind::not_a_crawl_database);
  try {
    CrawlExport e(newer.str());
  } catch (const ExportError& e) {
    CHECK(std::string{e.what()} == "'" + newer.str() +
                                     "' is not a crawl database: its schema version 99 is newer than this build "
                                     "reads (" + std::to_string(kCrawlSchemaVersion) + ")");
  }
}

TEST_CASE("export: a database of an older schema, and columns holding what the crawler never writes",
          "[store][export]") {
  TempDbPath db;
  {
    // Version 1 had no links_dropped; a link of a page that does not exist,
    // text in an integer column, a redirect chain that is not the crawler's.
    SQLite::Database d(db.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    d.exec(
      "CREATE TABLE nodes (node_id INTEGER PRIMARY KEY, domain_name TEXT, description TEXT, crawl_count INTEGER);"
      "CREATE TABLE edges (edge_id INTEGER PRIMARY KEY, from_node_id INTEGER, to_node_id INTEGER, weight INTEGER);"
      "CREATE TABLE pages (page_id INTEGER PRIMARY KEY, url TEXT, node_id INTEGER, depth INTEGER, status_code "
      "INTEGER, content_type TEXT, title TEXT, description TEXT, bytes INTEGER, fetch_ms INTEGER, fetched_at "
      "INTEGER, error TEXT, final_url TEXT, redirect_chain TEXT, truncated INTEGER, canonical_url TEXT, attempts "
      "INTEGER, robots_directives TEXT);"
      "CREATE TABLE links (from_page_id INTEGER, to_url TEXT, nofollow INTEGER, position INTEGER,"
      " PRIMARY KEY (from_page_id, to_url)) WITHOUT ROWID;"
      "INSERT INTO pages(page_id, url, depth, redirect_chain) VALUES (5, 'http://x.test/', 'deep', '[[[1]]]');"
      "INSERT INTO links VALUES (1, 'http://orphan.test/', 0, 0), (5, 'http://y.test/', 1, 0);"
      "INSERT INTO edges VALUES (1, 1, 2, 7);"
      "PRAGMA user_version = 1");
  }
  CHECK(export_of(db.str(), ExportFormat::jsonl) ==
        "{\"url\":\"http://x.test/\",\"final_url\":null,\"status_code\":null,\"content_type\":null,\"title\":null,"
        "\"description\":null,\"depth\":0,\"fetched_at\":null,\"fetch_ms\":null,\"bytes\":null,\"truncated\":null,"
        "\"attempts\":null,\"error\":null,\"redirect_chain\":\"[[[1]]]\",\"canonical_url\":null,"
        "\"robots_directives\":null,\"links\":[{\"url\":\"http://y.test/\",\"nofollow\":true}],"
        "\"links_dropped\":0}\n");
  // The edge names nodes that do not exist: left out.
  CHECK(export_of(db.str(), ExportFormat::dot) == "digraph \"domains\" {\n}\n");
}

TEST_CASE("export text: XML never gets a character XML 1.0 forbids, nor a byte that is not UTF-8",
          "[store][export]") {
  std::string out;
  append_xml(out, std::string{"a\0b\x1F\t\r\n<&>\"'\x7F", 13});
  CHECK(out == "a" U_FFFD "b" U_FFFD "&#9;&#13;&#10;&lt;&amp;&gt;&quot;'\x7F");
  out.clear();
  // U+FFFE and U+FFFF are not characters to XML; U+10FFFF is.
  append_xml(out, "\xEF\xBF\xBE\xEF\xBF\xBF\xF4\x8F\xBF\xBF");
  CHECK(out == U_FFFD U_FFFD "\xF4\x8F\xBF\xBF");
  out.clear();
  // An overlong '/', a surrogate, a byte past U+10FFFF's range, a sequence
  // cut short at the end: each byte replaced, the rest kept.
  append_utf8(out, "\xC0\xAF|\xED\xA0\x80|\xF5|\xE2\x82");
  CHECK(out == U_FFFD U_FFFD "|" U_FFFD U_FFFD U_FFFD "|" U_FFFD "|" U_FFFD U_FFFD);
  out.clear();
  append_utf8(out, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  CHECK(out == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST_CASE("export text: a DOT string is read back by Graphviz as the same bytes", "[store][export]") {
  const auto dot = [](const std::string& text) {
    std::string s;
    append_dot_quoted(s, text);
    return s;
  };
  // Only a quote is escaped: Graphviz keeps a backslash, a backslash pair,
  // tab, CR and every other control as they are.
  CHECK(dot("a\"b\\c\nd\te\rf") == "\"a\\\"b\\c\nd\te\rf\"");
  CHECK(dot("c:\\\\dir\\x") == "\"c:\\\\dir\\x\"");
  CHECK(dot("\x01\x1F\x7F\xC2\x85") == "\"\x01\x1F\x7F\xC2\x85\"");
  // An even run of backslashes stays before a quote or the end.
  CHECK(dot("two\\\\") == "\"two\\\\\"");
  CHECK(dot("\\\\\"") == "\"\\\\\\\"\"");
  // A last odd backslash would escape the closing quote, a quote, or (as a
  // line continuation) a line feed: no spelling keeps it.
  CHECK(dot("end\\") == "\"end" U_FFFD "\"");
  CHECK(dot("\\\\\\") == "\"\\\\" U_FFFD "\"");
  CHECK(dot("a\\\"b") == "\"a" U_FFFD "\\\"b\"");
  CHECK(dot("a\\\nb") == "\"a" U_FFFD "\nb\"");
  // A line feed Graphviz 2.43 drops: alone between the start or end, a
  // quote or a backslash. Next to anything else it is kept.
  CHECK(dot("\n") == "\"" U_FFFD "\"");
  CHECK(dot("\"\n") == "\"\\\"" U_FFFD "\"");
  CHECK(dot("\\\\\n\\\\") == "\"\\\\" U_FFFD "\\\\\"");
  CHECK(dot("\n\n") == "\"\n\n\"");
  CHECK(dot("a\n") == "\"a\n\"");
  CHECK(dot("\nb") == "\"\nb\"");
  CHECK(dot("\"\nb\"") == "\"\\\"\nb\\\"\"");
  // NUL ends a C string; bytes that are not UTF-8 are replaced.
  CHECK(dot(std::string{"nul\0here", 8}) == "\"nul" U_FFFD "here\"");
  CHECK(dot("\xFF\n") == "\"" U_FFFD "\n\"");
}

TEST_CASE("export text: a CSV field, its formula guard undone by dropping one leading quote", "[store][export]") {
  const auto csv = [](const std::string& text) {
    std::string s;
    append_csv_text(s, text);
    return s;
  };
  CHECK(csv("plain text") == "plain text");
  CHECK(csv("a,b") == "\"a,b\"");
  CHECK(csv("say \"x\"") == "\"say \"\"x\"\"\"");
  CHECK(csv("two\r\nlines") == "\"two\r\nlines\"");
  CHECK(csv("=1+1") == "\"'=1+1\"");
  CHECK(csv("+1") == "\"'+1\"");
  CHECK(csv("-1") == "\"'-1\"");
  CHECK(csv("@SUM(A1)") == "\"'@SUM(A1)\"");
  CHECK(csv("\tx") == "\"'\tx\"");
  CHECK(csv("\rx") == "\"'\rx\"");
  CHECK(csv("a=b") == "a=b");
  // A value that begins with a quote gets one more, so dropping one
  // leading quote gives back every value, these included.
  CHECK(csv("'=1+1") == "\"''=1+1\"");
  CHECK(csv("''x") == "\"'''x\"");
  CHECK(csv("'") == "\"''\"");
  CHECK(csv("it's") == "it's");
  // Every control character but tab, LF and CR: C0, DEL, C1.
  CHECK(csv(std::string{"nul\0here", 8}) == "nul" U_FFFD "here");
  CHECK(csv("a\x01" "b\x7F" "c\xC2\x80" "d\xC2\x9F" "e\xC2\xA0") ==
        "a" U_FFFD "b" U_FFFD "c" U_FFFD "d" U_FFFD "e\xC2\xA0");
  CHECK(csv("\x7F=x") == U_FFFD "=x");
}

TEST_CASE("export: while a crawl writes the database, the export reads what was committed", "[store][export]") {
  TempDbPath db;
  CrawlStore store(db.str());  // the writer, holding the database's lock
  PageRow first;
  first.url = "http://a.test/";
  first.host_key = "a.test";
  first.fetched_at_ms = 1;
  store.record_page(first);
  store.flush();
  PageRow second = first;
  second.url = "http://a.test/2";
  store.record_page(second);  // in the writer's open transaction: not committed
  CHECK(export_of(db.str(), ExportFormat::csv) ==
        "url,final_url,status_code,content_type,title,description,depth,fetched_at,fetch_ms,bytes,truncated,"
        "attempts,error,canonical_url,robots_directives,redirect_chain,links,links_dropped\r\n"
        "http://a.test/,,,,,,0,1,0,0,0,1,,,,,0,0\r\n");
  // An export begun before a commit keeps its snapshot for every pass.
  CrawlExport during(db.str());
  store.flush();
  std::ostringstream out;
  during.write(ExportFormat::jsonl, ExportGraph::domains, out);
  const std::string before = out.str();
  const std::string after = export_of(db.str(), ExportFormat::jsonl);
  CHECK(std::count(before.begin(), before.end(), '\n') == 1);
  CHECK(std::count(after.begin(), after.end(), '\n') == 2);
}

namespace {

std::string export_items(const std::string& path, ExportFormat format, const std::optional<std::string>& kind) {
  std::ostringstream out;
  CrawlExport(path).write(format, ExportGraph::domains, out, {}, kind);
  return out.str();
}

// Two pages and their items as processors would store them, kinds
// interleaved: product items whose keys differ from item to item (a new
// key, a missing one, another order, a key named `url`, an empty key) and
// whose values hold what CSV and spreadsheets choke on; items that are
// not JSON objects (a database from elsewhere); a recipe.
void build_items_crawl(const std::string& path) {
  CrawlStore store(path);
  PageRow a;
  a.url = "http://a.test/";
  a.host_key = "a.test";
  a.fetched_at_ms = 1;
  a.items = {
    {"product", R"j({"name":"Widget, \"deluxe\"","price":9.99,"tags":["a","b"],"stock":null,)j"
                R"j("url":"http://a.test/w"})j"},
    {"recipe", R"j({"title":"Soup","serves":4})j"},
    {"product", R"j({"name":"=SUM(A1)","price":-5,"in_stock":true,"specs":{"w":1,"h":"2\n3"}})j"},
  };
  store.record_page(a);
  PageRow b;
  b.url = "http://b.test/x?a=1,2";
  b.host_key = "b.test";
  b.fetched_at_ms = 2;
  b.items = {
    {"product", R"j({"price":"+1","name":"Caf\u00e9 \u2013 )j" "\xC3\xBCn\xC3\xAF" R"j(code \ud83d\ude00",)j"
                R"j("note":"line\nfeed\u0001 and CR\r"})j"},
    {"product", R"j(not json {"x":1})j"},
    {"product", "[1,2]"},
    {"product", R"j({"name":"it's","":"empty key","price":1e2,"=k,ey":"v"})j"},
  };
  store.record_page(b);
  store.flush();
}

}  // namespace

TEST_CASE("export: items, one JSON line per item in item_id order, the item embedded", "[store][export][items]") {
  TempDbPath db;
  build_items_crawl(db.str());
  CHECK(export_items(db.str(), ExportFormat::items, std::nullopt) ==
        "{\"url\":\"http://a.test/\",\"kind\":\"product\",\"item\":{\"name\":\"Widget, \\\"deluxe\\\"\","
        "\"price\":9.99,\"tags\":[\"a\",\"b\"],\"stock\":null,\"url\":\"http://a.test/w\"}}\n"
        "{\"url\":\"http://a.test/\",\"kind\":\"recipe\",\"item\":{\"title\":\"Soup\",\"serves\":4}}\n"
        "{\"url\":\"http://a.test/\",\"kind\":\"product\",\"item\":{\"name\":\"=SUM(A1)\",\"price\":-5,"
        "\"in_stock\":true,\"specs\":{\"w\":1,\"h\":\"2\\n3\"}}}\n"
        // Unicode escapes are written as the characters; controls as escapes.
        "{\"url\":\"http://b.test/x?a=1,2\",\"kind\":\"product\",\"item\":{\"price\":\"+1\","
        "\"name\":\"Caf\xC3\xA9 \xE2\x80\x93 \xC3\xBCn\xC3\xAF" "code \xF0\x9F\x98\x80\","
        "\"note\":\"line\\nfeed\\u0001 and CR\\r\"}}\n"
        // Not JSON: its text, as a string. JSON that is not an object: as it is.
        "{\"url\":\"http://b.test/x?a=1,2\",\"kind\":\"product\",\"item\":\"not json {\\\"x\\\":1}\"}\n"
        "{\"url\":\"http://b.test/x?a=1,2\",\"kind\":\"product\",\"item\":[1,2]}\n"
        "{\"url\":\"http://b.test/x?a=1,2\",\"kind\":\"product\",\"item\":{\"name\":\"it's\",\"\":\"empty key\","
        "\"price\":100.0,\"=k,ey\":\"v\"}}\n");
  CHECK(export_items(db.str(), ExportFormat::items, "recipe") ==
        "{\"url\":\"http://a.test/\",\"kind\":\"recipe\",\"item\":{\"title\":\"Soup\",\"serves\":4}}\n");
  CHECK(export_items(db.str(), ExportFormat::items, "article").empty());
}

TEST_CASE("export: items-csv, url then the union of the kind's keys in first-seen order", "[store][export][items]") {
  TempDbPath db;
  build_items_crawl(db.str());
  CHECK(export_items(db.str(), ExportFormat::items_csv, "product") ==
        // The item's own `url` is headed item.url; the empty key is an empty
        // header; a key is guarded and quoted as any text.
        "url,name,price,tags,stock,item.url,in_stock,specs,note,,\"'=k,ey\"\r\n"
        "http://a.test/,\"Widget, \"\"deluxe\"\"\",9.99,\"[\"\"a\"\",\"\"b\"\"]\",,http://a.test/w,,,,,\r\n"
        // A formula is guarded; a number is not; an object is its JSON text.
        "http://a.test/,\"'=SUM(A1)\",-5,,,,true,\"{\"\"w\"\":1,\"\"h\"\":\"\"2\\n3\"\"}\",,,\r\n"
        // A string that looks like a formula is guarded; LF and CR are kept
        // (quoted), other controls replaced.
        "\"http://b.test/x?a=1,2\",Caf\xC3\xA9 \xE2\x80\x93 \xC3\xBCn\xC3\xAF" "code \xF0\x9F\x98\x80,\"'+1\",,,,,,"
        "\"line\nfeed" U_FFFD " and CR\r\",,\r\n"
        // Not a JSON object: the page's URL and no values.
        "\"http://b.test/x?a=1,2\",,,,,,,,,,\r\n"
        "\"http://b.test/x?a=1,2\",,,,,,,,,,\r\n"
        "\"http://b.test/x?a=1,2\",it's,100.0,,,,,,,empty key,v\r\n");
  CHECK(export_items(db.str(), ExportFormat::items_csv, "recipe") == "url,title,serves\r\nhttp://a.test/,Soup,4\r\n");
  // A kind with no items: the header alone.
  CHECK(export_items(db.str(), ExportFormat::items_csv, "article") == "url\r\n");
}

TEST_CASE("export: items-csv needs a kind, the kinds are listed from the index", "[store][export][items]") {
  TempDbPath db;
  build_items_crawl(db.str());
  CHECK_THROWS_AS(export_items(db.str(), ExportFormat::items_csv, std::nullopt), std::invalid_argument);
  CrawlExport source(db.str());
  CHECK(source.item_kinds(10) == std::vector<std::string>{"product", "recipe"});
  CHECK(source.item_kinds(1) == std::vector<std::string>{"product"});
  CHECK(source.item_kinds_listed() == "product, recipe");
  CHECK(source.item_kinds_listed(1) == "product, ...");
  CHECK(source.has_items_of("recipe"));
  CHECK_FALSE(source.has_items_of("article"));

  TempDbPath empty;
  { CrawlStore store(empty.str()); }
  CrawlExport none(empty.str());
  CHECK(none.item_kinds_listed().empty());
  CHECK(export_items(empty.str(), ExportFormat::items, std::nullopt).empty());
  CHECK(export_items(empty.str(), ExportFormat::items_csv, "product") == "url\r\n");
}

TEST_CASE("export: item formats' names, extensions, media types and progress", "[store][export][items]") {
  CHECK(export_format_named("items") == ExportFormat::items);
  CHECK(export_format_named("items-csv") == ExportFormat::items_csv);
  CHECK_FALSE(export_format_named("items_csv"));
  CHECK(std::string{export_format_name(ExportFormat::items_csv)} == "items-csv");
  CHECK(std::string{file_extension(ExportFormat::items)} == "jsonl");
  CHECK(std::string{file_extension(ExportFormat::items_csv)} == "csv");
  CHECK(std::string{media_type(ExportFormat::items)} == "application/x-ndjson; charset=utf-8");
  CHECK(std::string{media_type(ExportFormat::items_csv)} == "text/csv; charset=utf-8; header=present");
  CHECK(is_items_format(ExportFormat::items));
  CHECK_FALSE(is_items_format(ExportFormat::csv));
  CHECK_FALSE(is_graph_format(ExportFormat::items_csv));

  TempDbPath db;
  build_items_crawl(db.str());
  std::vector<std::pair<std::int64_t, std::int64_t>> told;
  const auto tell = [&](std::int64_t done, std::int64_t total) { told.emplace_back(done, total); };
  std::ostringstream out;
  CrawlExport(db.str()).write(ExportFormat::items, ExportGraph::domains, out, tell);
  CHECK(told == std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 7}, {7, 7}});
  told.clear();
  // items-csv reads the kind's items twice (keys, then rows): each counted twice.
  CrawlExport(db.str()).write(ExportFormat::items_csv, ExportGraph::domains, out, tell, "product");
  CHECK(told == std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 12}, {12, 12}});
}

TEST_CASE("export: items nested too deep to rebuild, items of a missing page, a key renamed twice, a database "
          "without items",
          "[store][export][items]") {
  TempDbPath db;
  {
    CrawlStore store(db.str());
    PageRow p;
    p.url = "http://a.test/";
    p.host_key = "a.test";
    p.fetched_at_ms = 1;
    // Valid JSON 600 levels deep: written back as text, not rebuilt (its
    // serializer recurses, and a hostile depth would overflow the stack).
    p.items = {{"deep", "{\"a\":" + std::string(600, '[') + std::string(600, ']') + "}"},
               {"deep", "{\"a\":" + std::string(20, '[') + std::string(20, ']') + "}"},
               // A key named `url` when another key is already item.url.
               {"clash", R"j({"item.url":"a","url":"b"})j"}};
    store.record_page(p);
    store.flush();
  }
  {
    // The store's foreign keys forbid it; another writer may not have.
    SQLite::Database d(db.str(), SQLite::OPEN_READWRITE);
    d.exec("INSERT INTO items(page_id, kind, item) VALUES (99, 'deep', '{\"orphan\":1}')");
  }
  CHECK(export_items(db.str(), ExportFormat::items, "deep") ==
        "{\"url\":\"http://a.test/\",\"kind\":\"deep\",\"item\":\"{\\\"a\\\":" + std::string(600, '[') +
          std::string(600, ']') + "}\"}\n"
          "{\"url\":\"http://a.test/\",\"kind\":\"deep\",\"item\":{\"a\":" + std::string(20, '[') +
          std::string(20, ']') + "}}\n");
  CHECK(export_items(db.str(), ExportFormat::items_csv, "deep") ==
        "url,a\r\nhttp://a.test/,\r\nhttp://a.test/," + std::string(20, '[') + std::string(20, ']') + "\r\n");

  CHECK(export_items(db.str(), ExportFormat::items_csv, "clash") ==
        "url,item.url,item.item.url\r\nhttp://a.test/,a,b\r\n");

  // Before schema 5 there is no items table: no items, no error.
  TempDbPath old;
  {
    SQLite::Database d(old.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    d.exec(
      "CREATE TABLE nodes (node_id INTEGER PRIMARY KEY, domain_name TEXT, description TEXT, crawl_count INTEGER);"
      "CREATE TABLE edges (edge_id INTEGER PRIMARY KEY, from_node_id INTEGER, to_node_id INTEGER, weight INTEGER);"
      "CREATE TABLE pages (page_id INTEGER PRIMARY KEY, url TEXT);"
      "CREATE TABLE links (from_page_id INTEGER, to_url TEXT, nofollow INTEGER, position INTEGER,"
      " PRIMARY KEY (from_page_id, to_url)) WITHOUT ROWID;"
      "INSERT INTO pages VALUES (1, 'http://x.test/');"
      "PRAGMA user_version = 4");
  }
  CHECK(export_items(old.str(), ExportFormat::items, std::nullopt).empty());
  CHECK(export_items(old.str(), ExportFormat::items_csv, "product") == "url\r\n");
  CHECK(CrawlExport(old.str()).item_kinds_listed().empty());
  CHECK_FALSE(CrawlExport(old.str()).has_items_of("product"));
}

namespace {

std::string export_changes(const std::string& path, ChangesFilter filter) {
  std::ostringstream out;
  CrawlExport(path).write(ExportFormat::changes, ExportGraph::domains, out, {}, std::nullopt, filter);
  return out.str();
}

PageRow changes_page(const std::string& url, const std::string& digest, int status = 200) {
  PageRow page;
  page.url = url;
  page.host_key = "a.test";
  page.status_code = status;
  page.fetched_at_ms = 1000;
  page.content_digest = digest;
  return page;
}

}  // namespace

TEST_CASE("export: changes, one line per page a later run found changed or gone", "[store][export][changes]") {
  TempDbPath db;
  {
    CrawlStore store(db.str());
    const auto first = store.begin_run(1, "[]");
    for (const char* url : {"http://a.test/same", "http://a.test/edited", "http://a.test/deleted"})
      store.record_page(changes_page(url, "sha1:A"));
    store.end_run(first, 2, "queue_empty");
    const auto second = store.begin_run(3, "[]");
    store.record_page(changes_page("http://a.test/same", "sha1:A"));
    store.record_page(changes_page("http://a.test/edited", "sha1:B"));
    store.record_page(changes_page("http://a.test/deleted", "", 410));
    store.record_page(changes_page("http://a.test/fresh", "sha1:C"));
    store.end_run(second, 4, "queue_empty");
    const auto third = store.begin_run(5, "[]");
    store.record_page(changes_page("http://a.test/edited", "sha1:D"));
    store.end_run(third, 6, "queue_empty");
  }
  CHECK(export_changes(db.str(), {}) ==
        "{\"url\":\"http://a.test/edited\",\"run\":2,\"change\":\"changed\"}\n"
        "{\"url\":\"http://a.test/deleted\",\"run\":2,\"change\":\"gone\"}\n"
        "{\"url\":\"http://a.test/edited\",\"run\":3,\"change\":\"changed\"}\n");
  CHECK(export_changes(db.str(), ChangesFilter{false, 2}) ==
        "{\"url\":\"http://a.test/edited\",\"run\":3,\"change\":\"changed\"}\n");
  CHECK(export_changes(db.str(), ChangesFilter{true, 1}) ==
        "{\"url\":\"http://a.test/edited\",\"run\":2,\"change\":\"changed\"}\n"
        "{\"url\":\"http://a.test/deleted\",\"run\":2,\"change\":\"gone\"}\n"
        "{\"url\":\"http://a.test/fresh\",\"run\":2,\"change\":\"new\"}\n"
        "{\"url\":\"http://a.test/edited\",\"run\":3,\"change\":\"changed\"}\n");
  CHECK(export_format_named("changes") == ExportFormat::changes);
  CHECK(std::string{file_extension(ExportFormat::changes)} == "jsonl");
}

TEST_CASE("export: changes of a database from before schema 6 is empty", "[store][export][changes]") {
  TempDbPath db;
  {
    CrawlStore store(db.str());
    store.record_page(changes_page("http://a.test/", "sha1:A"));
  }
  { SQLite::Database(db.str(), SQLite::OPEN_READWRITE).exec("DROP TABLE page_changes"); }
  CHECK(export_changes(db.str(), ChangesFilter{true, 0}).empty());
}
