#include "core/store/crawl_store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/store/crawl_schema.h"
#include "core/web/url_fingerprint.h"
#include "tests/unit/temp_database.h"

namespace fs = std::filesystem;
using namespace actorcrawl;

namespace {

using testing::TempDbPath;
using testing::scalar;
using testing::text_or_null;

PageRow make_page(const std::string& url, const std::string& host_key) {
  PageRow page;
  page.url = url;
  page.host_key = host_key;
  page.status_code = 200;
  page.content_type = "text/html";
  page.bytes = 1000;
  page.fetch_ms = 10;
  page.fetched_at_ms = 1000;
  page.final_url = url;
  return page;
}

FrontierEntry entry(std::int64_t seq, const std::string& url, std::int32_t depth = 0,
                    const std::string& parent = "") {
  return FrontierEntry{seq, url, depth, parent};
}

struct NodeRow {
  std::string description;
  std::int64_t crawl_count;
};

NodeRow node(const std::string& path, const std::string& host_key) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT description, crawl_count FROM nodes WHERE domain_name = ?");
  q.bind(1, host_key);
  REQUIRE(q.executeStep());
  return NodeRow{text_or_null(q.getColumn(0)), q.getColumn(1).getInt64()};
}

// (from, to) host keys -> weight
std::map<std::pair<std::string, std::string>, std::int64_t> edges(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, R"sql(
      SELECT f.domain_name, t.domain_name, e.weight FROM edges e
      JOIN nodes f ON f.node_id = e.from_node_id
      JOIN nodes t ON t.node_id = e.to_node_id)sql");
  std::map<std::pair<std::string, std::string>, std::int64_t> out;
  while (q.executeStep())
    out[{q.getColumn(0).getString(), q.getColumn(1).getString()}] = q.getColumn(2).getInt64();
  return out;
}

// (to_url, nofollow, position) of a page's links, in position order.
std::vector<std::tuple<std::string, int, int>> links_of(const std::string& path,
                                                        const std::string& url) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, R"sql(
      SELECT l.to_url, l.nofollow, l.position FROM links l
      JOIN pages p ON p.page_id = l.from_page_id
      WHERE p.url = ? ORDER BY l.position)sql");
  q.bind(1, url);
  std::vector<std::tuple<std::string, int, int>> out;
  while (q.executeStep())
    out.emplace_back(q.getColumn(0).getString(), q.getColumn(1).getInt(), q.getColumn(2).getInt());
  return out;
}

// (name, declared type, notnull, default, pk) per column, as SQLite reports.
using ColumnInfo = std::tuple<std::string, std::string, int, std::string, int>;

std::vector<ColumnInfo> table_info(const std::string& path, const std::string& table) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)");
  q.bind(1, table);
  std::vector<ColumnInfo> out;
  while (q.executeStep())
    out.emplace_back(q.getColumn(0).getString(), q.getColumn(1).getString(), q.getColumn(2).getInt(),
                     text_or_null(q.getColumn(3)), q.getColumn(4).getInt());
  return out;
}

std::vector<std::string> index_columns(const std::string& path, const std::string& index) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT name FROM pragma_index_info(?) ORDER BY seqno");
  q.bind(1, index);
  std::vector<std::string> out;
  while (q.executeStep())
    out.push_back(q.getColumn(0).getString());
  return out;
}

}  // namespace

TEST_CASE("schema: seed nodes and edges tables, indexes, version, WAL", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());

  CHECK(table_info(path.str(), "nodes") ==
        std::vector<ColumnInfo>{
            {"node_id", "INTEGER", 0, "<null>", 1},
            {"domain_name", "TEXT", 1, "<null>", 0},
            {"description", "TEXT", 0, "<null>", 0},
            {"crawl_count", "INTEGER", 0, "0", 0},
            {"created_at", "TIMESTAMP", 0, "CURRENT_TIMESTAMP", 0},
        });
  CHECK(table_info(path.str(), "edges") ==
        std::vector<ColumnInfo>{
            {"edge_id", "INTEGER", 0, "<null>", 1},
            {"from_node_id", "INTEGER", 1, "<null>", 0},
            {"to_node_id", "INTEGER", 1, "<null>", 0},
            {"weight", "INTEGER", 0, "1", 0},
        });
  CHECK(index_columns(path.str(), "idx_nodes_domain") == std::vector<std::string>{"domain_name"});
  CHECK(index_columns(path.str(), "idx_edges_from") == std::vector<std::string>{"from_node_id"});
  CHECK(index_columns(path.str(), "idx_edges_to") == std::vector<std::string>{"to_node_id"});
  CHECK(scalar(path.str(),
               "SELECT COUNT(*) FROM pragma_foreign_key_list('edges') "
               "WHERE \"table\" = 'nodes' AND \"to\" = 'node_id'") == 2);
  CHECK(scalar(path.str(),
               "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name IN "
               "('pages', 'page_links', 'frontier', 'dead_letters', 'crawl_runs')") == 5);
  // links: a view of page_links, with the columns the table had.
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'view' AND name = 'links'") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pragma_table_info('links') WHERE name IN "
                           "('from_page_id', 'to_url', 'nofollow', 'position', 'followed')") == 5);
  CHECK(index_columns(path.str(), "idx_frontier_state") ==
        std::vector<std::string>{"state", "seq"});
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);

  SQLite::Database reader(path.str(), SQLite::OPEN_READONLY);
  CHECK(reader.execAndGet("PRAGMA journal_mode").getString() == "wal");
}

TEST_CASE("record_page upserts nodes and accumulates edge weights", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());

  PageRow a = make_page("http://a.test/x", "a.test");
  a.link_host_keys = {"b.test", "c.test:8080"};
  store.record_page(a);
  PageRow a2 = make_page("http://a.test/y", "a.test");
  a2.link_host_keys = {"b.test"};
  store.record_page(a2);
  PageRow b = make_page("http://b.test/", "b.test");
  b.link_host_keys = {"a.test", "b.test"};  // a same-host key makes no edge
  store.record_page(b);
  store.flush();

  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM nodes") == 3);
  CHECK(node(path.str(), "a.test").crawl_count == 2);
  CHECK(node(path.str(), "b.test").crawl_count == 1);
  CHECK(node(path.str(), "c.test:8080").crawl_count == 0);
  CHECK(edges(path.str()) == std::map<std::pair<std::string, std::string>, std::int64_t>{
                                 {{"a.test", "b.test"}, 2},
                                 {{"a.test", "c.test:8080"}, 1},
                                 {{"b.test", "a.test"}, 1},
                             });
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages") == 3);
  CHECK(scalar(path.str(),
               "SELECT COUNT(*) FROM pages p JOIN nodes n ON n.node_id = p.node_id "
               "WHERE n.domain_name = 'a.test'") == 2);
}

TEST_CASE("node description: first text, then only the root page replaces it", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());

  // A node created as a link target has no description and no crawls.
  PageRow linker = make_page("http://x.test/", "x.test");
  linker.link_host_keys = {"d.test"};
  store.record_page(linker);
  store.flush();
  CHECK(node(path.str(), "d.test").description == "<null>");

  // A page with neither title nor description leaves it NULL.
  store.record_page(make_page("http://d.test/empty", "d.test"));
  store.flush();
  CHECK(node(path.str(), "d.test").description == "<null>");

  // Without a title, the meta description is used.
  PageRow deep = make_page("http://d.test/a/b?q=1", "d.test");
  deep.description = "meta text";
  store.record_page(deep);
  store.flush();
  CHECK(node(path.str(), "d.test").description == "meta text");

  // Another non-root page does not overwrite it.
  PageRow other = make_page("http://d.test/other", "d.test");
  other.title = "Other";
  store.record_page(other);
  store.flush();
  CHECK(node(path.str(), "d.test").description == "meta text");

  // The root page does; the title wins over the description.
  PageRow root = make_page("http://d.test/?lang=en", "d.test");
  root.title = "D Home";
  root.description = "about d";
  store.record_page(root);
  store.flush();
  CHECK(node(path.str(), "d.test").description == "D Home");

  // A root page without text does not erase it.
  store.record_page(make_page("http://d.test", "d.test"));
  store.flush();
  CHECK(node(path.str(), "d.test").description == "D Home");
  CHECK(node(path.str(), "d.test").crawl_count == 5);

  // Host keys with ports: "/" after the port is the root.
  PageRow port_root = make_page("http://p.test:8080/", "p.test:8080");
  port_root.title = "P";
  store.record_page(port_root);
  PageRow port_root2 = make_page("http://p.test:8080/", "p.test:8080");
  port_root2.title = "P2";
  store.record_page(port_root2);
  store.flush();
  CHECK(node(path.str(), "p.test:8080").description == "P2");
}

// A node's crawl count and description are added up in memory for a batch
// and written once a node just before it commits: the same, whatever the
// batch, as a commit after every page gives; and a page whose write fails
// counts nothing.
TEST_CASE("node counts and descriptions are the same whatever the batch and a failed page counts nothing",
          "[store]") {
  struct Visit {
    const char* url;
    const char* title;
  };
  // In crawl order: a text for an empty node, one that does not replace
  // it, host roots that do, a root without text, a page without text.
  const std::vector<Visit> visits = {
    {"http://d.test/a", "A"},     {"http://d.test/b", "B"}, {"http://e.test/x", ""},
    {"http://d.test/", "Root 1"}, {"http://d.test/c", "C"}, {"http://d.test/?q", "Root 2"},
    {"http://d.test/", ""},       {"http://e.test/y", "Y"}, {"http://f.test/", ""},
  };
  std::vector<std::string> nodes_by_batch;
  for (std::size_t batch_ops : {std::size_t{1}, std::size_t{4}, std::size_t{512}}) {
    TempDbPath path;
    {
      CrawlStore store(path.str(), batch_ops);
      store.flush();
    }
    {
      // A trigger makes any page with a link to /boom fail after its node
      // was met.
      SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
      db.exec("CREATE TRIGGER boom BEFORE INSERT ON page_links WHEN NEW.urls LIKE '%/boom%' "
              "BEGIN SELECT RAISE(ABORT, 'boom'); END");
    }
    CrawlStore store(path.str(), batch_ops);
    for (std::size_t i = 0; i < visits.size(); ++i) {
      const std::string url = visits[i].url;
      PageRow page = make_page(url, url.substr(7, 6));
      page.title = visits[i].title;
      store.record_page(page);
      if (i % 3 == 1) {
        PageRow failing = make_page(url, url.substr(7, 6));
        failing.title = "never";
        failing.links = {{"http://x.test/boom", false, false}};
        CHECK_THROWS_AS(store.record_page(failing), StoreError);
      }
    }
    store.flush();
    SQLite::Database db(path.str(), SQLite::OPEN_READONLY);
    SQLite::Statement q(db, "SELECT group_concat(domain_name || '=' || crawl_count || ':' || "
                            "COALESCE(description, '<null>'), ' ') FROM (SELECT * FROM nodes ORDER BY domain_name)");
    REQUIRE(q.executeStep());
    nodes_by_batch.push_back(q.getColumn(0).getString());
  }
  CHECK(nodes_by_batch[0] == "d.test=6:Root 2 e.test=2:Y f.test=1:<null>");
  CHECK(nodes_by_batch[1] == nodes_by_batch[0]);
  CHECK(nodes_by_batch[2] == nodes_by_batch[0]);
}

TEST_CASE("record_pages writes a message's pages as one call: all of them or none", "[store]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    store.flush();
  }
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
    db.exec("CREATE TRIGGER boom BEFORE INSERT ON page_links WHEN NEW.urls LIKE '%/boom%' "
            "BEGIN SELECT RAISE(ABORT, 'boom'); END");
  }
  CrawlStore store(path.str());
  std::vector<PageRow> pages;
  for (int i = 0; i < 3; ++i) {
    pages.push_back(make_page("http://a.test/" + std::to_string(i), "a.test"));
    pages.back().link_host_keys = {"b.test"};
    pages.back().links = {{"http://b.test/" + std::to_string(i), false, true}};
  }
  store.record_pages(pages);
  // The second page of the next call fails: its first is undone with it.
  std::vector<PageRow> failing = {make_page("http://a.test/3", "a.test"), make_page("http://a.test/4", "a.test")};
  failing[0].link_host_keys = {"c.test"};
  failing[1].links = {{"http://x.test/boom", false, false}};
  CHECK_THROWS_AS(store.record_pages(failing), StoreError);
  store.record_pages({});  // nothing to write
  store.flush();
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages") == 3);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM links") == 3);
  CHECK(node(path.str(), "a.test").crawl_count == 3);
  CHECK(edges(path.str()) == std::map<std::pair<std::string, std::string>, std::int64_t>{{{"a.test", "b.test"}, 3}});
}

// A page's links are one row (page_links) read as rows through the view
// links: every count keeps each link, its order, its flags, and the first
// of a repeated target, positions counted from 0 without gaps.
TEST_CASE("record_page keeps every link in order whatever their number", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  for (int count : {0, 1, 3, 4, 5, 15, 16, 17, 20, 21, 37}) {
    PageRow page = make_page("http://a.test/n" + std::to_string(count), "a.test");
    std::vector<std::tuple<std::string, int, int>> expected;
    int followed = 0;
    for (int i = 0; i < count; ++i) {
      // Every seventh link repeats the one before it: dropped, the first kept.
      const int target = i % 7 == 6 ? i - 1 : i;
      page.links.push_back({"http://b.test/" + std::to_string(target), i % 3 == 0, i % 2 == 0});
      if (target == i) {
        expected.emplace_back("http://b.test/" + std::to_string(i), i % 3 == 0 ? 1 : 0,
                              static_cast<int>(expected.size()));
        followed += i % 2 == 0 ? 1 : 0;
      }
    }
    store.record_page(page);
    store.flush();
    CAPTURE(count);
    CHECK(links_of(path.str(), page.url) == expected);
    CHECK(scalar(path.str(), "SELECT COUNT(*) FROM links l JOIN pages p ON p.page_id = l.from_page_id WHERE p.url = '" +
                               page.url + "' AND l.followed = 1") == followed);
    CHECK(scalar(path.str(), "SELECT COUNT(*) FROM page_links l JOIN pages p ON p.page_id = l.page_id WHERE p.url = '" +
                               page.url + "'") == (count > 0 ? 1 : 0));
  }
}

// Edge weights are counted in memory for a batch and written as it commits:
// the same weights whether a batch holds one page or all of them, a read in
// the middle of a batch sees them, and edge ids follow the order the pairs
// were first met.
TEST_CASE("edge weights are the same whatever the batch, and read mid-batch", "[store]") {
  std::vector<std::string> weights_by_batch;
  for (std::size_t batch_ops : {std::size_t{1}, std::size_t{3}, std::size_t{512}}) {
    TempDbPath path;
    CrawlStore store(path.str(), batch_ops);
    for (int i = 0; i < 10; ++i) {
      PageRow page = make_page("http://a.test/" + std::to_string(i), "a.test");
      page.link_host_keys = {"b.test", i % 2 == 0 ? "c.test" : "a.test", "d.test"};
      store.record_page(page);
      if (i == 4)
        CHECK(store.summary(0).edges_recorded == 3);  // a read commits the batch, its weights with it
    }
    PageRow from_b = make_page("http://b.test/", "b.test");
    from_b.link_host_keys = {"a.test"};
    store.record_page(from_b);
    store.flush();
    const auto e = edges(path.str());
    CHECK(e.at({"a.test", "b.test"}) == 10);
    CHECK(e.at({"a.test", "c.test"}) == 5);
    CHECK(e.at({"a.test", "d.test"}) == 10);
    CHECK(e.at({"b.test", "a.test"}) == 1);
    CHECK(e.size() == 4);
    SQLite::Database db(path.str(), SQLite::OPEN_READONLY);
    SQLite::Statement q(db, R"sql(
        SELECT group_concat(f.domain_name || '>' || t.domain_name || '=' || e.weight, ' ') FROM
        (SELECT * FROM edges ORDER BY edge_id) e
        JOIN nodes f ON f.node_id = e.from_node_id JOIN nodes t ON t.node_id = e.to_node_id)sql");
    REQUIRE(q.executeStep());
    weights_by_batch.push_back(q.getColumn(0).getString());
  }
  CHECK(weights_by_batch[0] == weights_by_batch[1]);
  CHECK(weights_by_batch[0] == weights_by_batch[2]);
}

// The store adds weight to an edge it has written by the edge's id; an
// edge deleted since (by hand, between two calls) is written anew, not
// lost in an update that changed nothing.
TEST_CASE("an edge gone from under the store is written anew", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str(), 1);
  PageRow first = make_page("http://a.test/1", "a.test");
  first.link_host_keys = {"b.test"};
  store.record_page(first);
  store.flush();
  CHECK(edges(path.str()).at({"a.test", "b.test"}) == 1);
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
    db.exec("DELETE FROM edges");
  }
  PageRow second = make_page("http://a.test/2", "a.test");
  second.link_host_keys = {"b.test"};
  store.record_page(second);
  store.record_page(second);
  store.flush();
  CHECK(edges(path.str()).at({"a.test", "b.test"}) == 2);
}

TEST_CASE("record_page on an existing url replaces the row and its links", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());

  PageRow first = make_page("http://a.test/p", "a.test");
  first.title = "old";
  first.error = "timeout";
  first.links = {{"http://a.test/1", false}, {"http://b.test/2", true}, {"http://a.test/3", false}};
  store.record_page(first);
  store.flush();
  const auto page_id = scalar(path.str(), "SELECT page_id FROM pages WHERE url = 'http://a.test/p'");
  CHECK(links_of(path.str(), "http://a.test/p") ==
        std::vector<std::tuple<std::string, int, int>>{
            {"http://a.test/1", 0, 0}, {"http://b.test/2", 1, 1}, {"http://a.test/3", 0, 2}});

  PageRow second = make_page("http://a.test/p", "a.test");
  second.title = "new";
  second.status_code = 0;  // stored as NULL
  second.truncated = true;
  second.attempts = 3;
  second.redirect_chain = R"([{"url":"http://a.test/q","status":301}])";
  second.links = {{"http://c.test/9", false}, {"http://a.test/1", true},
                  {"http://c.test/9", false}};  // duplicate keeps its first position
  store.record_page(second);
  store.flush();

  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages") == 1);
  CHECK(scalar(path.str(), "SELECT page_id FROM pages") == page_id);
  CHECK(links_of(path.str(), "http://a.test/p") ==
        std::vector<std::tuple<std::string, int, int>>{{"http://c.test/9", 0, 0},
                                                       {"http://a.test/1", 1, 1}});

  SQLite::Database db(path.str(), SQLite::OPEN_READONLY);
  SQLite::Statement q(db, R"sql(
      SELECT title, error, status_code, truncated, attempts, redirect_chain, content_type,
             bytes, fetch_ms, fetched_at, final_url, canonical_url, depth
      FROM pages)sql");
  REQUIRE(q.executeStep());
  CHECK(text_or_null(q.getColumn(0)) == "new");
  CHECK(text_or_null(q.getColumn(1)) == "<null>");
  CHECK(q.getColumn(2).isNull());
  CHECK(q.getColumn(3).getInt() == 1);
  CHECK(q.getColumn(4).getInt() == 3);
  CHECK(q.getColumn(5).getString() == R"([{"url":"http://a.test/q","status":301}])");
  CHECK(q.getColumn(6).getString() == "text/html");
  CHECK(q.getColumn(7).getInt64() == 1000);
  CHECK(q.getColumn(8).getInt64() == 10);
  CHECK(q.getColumn(9).getInt64() == 1000);
  CHECK(q.getColumn(10).getString() == "http://a.test/p");
  CHECK(q.getColumn(11).isNull());
  CHECK(q.getColumn(12).getInt() == 0);
}

// The page id a row's links and items are written under is not read back
// from the upsert: it is the stored row's (read before the write) or the
// row just inserted. New rows and a refetch mixed in one batch each keep
// their own.
TEST_CASE("links and items go with their own page, new or refetched, within one batch", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  const auto page_with = [](const std::string& url, const std::string& mark) {
    PageRow page = make_page(url, "a.test");
    page.links = {{"http://a.test/" + mark, false}};
    page.items = {ExtractedItem{"rule", "{\"mark\":\"" + mark + "\"}"}};
    return page;
  };
  store.record_page(page_with("http://a.test/p", "p1"));
  store.record_page(page_with("http://a.test/q", "q1"));
  store.record_page(page_with("http://a.test/p", "p2"));  // refetched before the batch commits
  store.record_page(page_with("http://a.test/r", "r1"));
  store.flush();
  store.record_page(page_with("http://a.test/q", "q2"));  // refetched in a later batch
  store.flush();

  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages") == 3);
  for (const auto& [url, mark] : std::vector<std::pair<std::string, std::string>>{
         {"http://a.test/p", "p2"}, {"http://a.test/q", "q2"}, {"http://a.test/r", "r1"}}) {
    INFO(url);
    CHECK(links_of(path.str(), url) == std::vector<std::tuple<std::string, int, int>>{{"http://a.test/" + mark, 0, 0}});
    SQLite::Database db(path.str(), SQLite::OPEN_READONLY);
    SQLite::Statement q(db, "SELECT i.item FROM items i JOIN pages p ON p.page_id = i.page_id WHERE p.url = ?1");
    q.bind(1, url);
    std::vector<std::string> items;
    while (q.executeStep())
      items.push_back(q.getColumn(0).getString());
    CHECK(items == std::vector<std::string>{"{\"mark\":\"" + mark + "\"}"});
  }
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM items") == 3);
  CHECK(node(path.str(), "a.test").crawl_count == 5);
}

TEST_CASE("frontier: add, dedupe, settle, load_queued order and from_seq", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());

  store.add_frontier({entry(1, "http://a.test/"), entry(2, "http://a.test/1", 1, "http://a.test/"),
                      entry(3, "http://a.test/2", 1, "http://a.test/")});
  // Same URL under a new seq: ignored, the first row is kept.
  store.add_frontier({entry(9, "http://a.test/1", 5, "http://elsewhere/"),
                      entry(4, "http://b.test/", 2, "http://a.test/1")});

  auto all = store.load_queued(0, 100);
  REQUIRE(all.size() == 4);
  CHECK(all[0].seq == 1);
  CHECK(all[0].url == "http://a.test/");
  CHECK(all[0].parent_url.empty());
  CHECK(all[1].seq == 2);
  CHECK(all[1].depth == 1);
  CHECK(all[1].parent_url == "http://a.test/");
  CHECK(all[3].seq == 4);
  CHECK(all[3].url == "http://b.test/");
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq = 9") == 0);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE parent_url IS NULL") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE discovered_at > 0") == 4);

  store.settle_frontier("http://a.test/", FrontierState::done);
  store.settle_frontier("http://a.test/2", FrontierState::failed);
  store.settle_frontier("http://unknown.test/", FrontierState::done);  // no row, no effect

  auto queued = store.load_queued(0, 100);
  REQUIRE(queued.size() == 2);
  CHECK(queued[0].seq == 2);
  CHECK(queued[1].seq == 4);

  auto from3 = store.load_queued(3, 100);
  REQUIRE(from3.size() == 1);
  CHECK(from3[0].seq == 4);
  CHECK(store.load_queued(0, 1).size() == 1);
  CHECK(store.load_queued(5, 100).empty());

  CHECK(scalar(path.str(), "SELECT state FROM frontier WHERE seq = 1") == 1);
  CHECK(scalar(path.str(), "SELECT state FROM frontier WHERE seq = 3") == 2);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE settled_at IS NOT NULL") == 2);
}

TEST_CASE("load_resume_state rebuilds the seen set and counters", "[store]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    ResumeState empty = store.load_resume_state();
    CHECK(empty.seen.empty());
    CHECK(empty.next_seq == 1);
    CHECK(empty.queued == 0);
    CHECK(empty.settled == 0);

    store.add_frontier({entry(1, "http://a.test/"), entry(2, "http://a.test/1"),
                        entry(7, "http://a.test/2"), entry(3, "http://b.test/")});
    store.settle_frontier("http://a.test/", FrontierState::done);
    store.settle_frontier("http://b.test/", FrontierState::failed);
  }
  CrawlStore store(path.str());
  ResumeState state = store.load_resume_state();
  CHECK(state.next_seq == 8);
  CHECK(state.queued == 2);
  CHECK(state.settled == 2);
  std::multiset<std::uint64_t> seen;
  std::set<std::uint64_t> fetched;
  for (const SeenUrl& url : state.seen) {
    seen.insert(url.fingerprint);
    if (url.fetched)
      fetched.insert(url.fingerprint);
  }
  CHECK(seen == std::multiset<std::uint64_t>{
                    url_fingerprint("http://a.test/"), url_fingerprint("http://a.test/1"),
                    url_fingerprint("http://a.test/2"), url_fingerprint("http://b.test/")});
  // Only the done row is fetched (never queued again; its links may be
  // offered again at a smaller depth).
  CHECK(fetched == std::set<std::uint64_t>{url_fingerprint("http://a.test/")});
}

TEST_CASE("load_resume_state counts the URLs stored redirect chains requested as fetched", "[store]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    store.add_frontier({entry(1, "http://a.test/moved"), entry(2, "http://a.test/stops"), entry(3, "http://a.test/dead"),
                        entry(4, "http://a.test/queued"), entry(5, "http://a.test/to-queued"),
                        entry(6, "http://a.test/garbled")});
    // /moved -> /hop -> /target, followed to the end.
    PageRow moved = make_page("http://a.test/moved", "a.test");
    moved.depth = 2;
    moved.final_url = "http://a.test/target";
    moved.redirect_chain = R"([{"status":301,"url":"http://a.test/moved"},{"status":302,"url":"http://a.test/hop"}])";
    store.record_page(moved);
    // A redirect recorded, not followed: its target was never asked for.
    PageRow stops = make_page("http://a.test/stops", "a.test");
    stops.status_code = 301;
    stops.final_url = "http://a.test/not-asked";
    stops.redirect_chain = R"([{"status":301,"url":"http://a.test/stops"}])";
    store.record_page(stops);
    // A chain that ended in an error is asked again with its first URL.
    PageRow dead = make_page("http://a.test/dead", "a.test");
    dead.error = "timeout";
    dead.final_url = "http://a.test/dead-target";
    dead.redirect_chain = R"([{"status":301,"url":"http://a.test/dead"},{"status":301,"url":"http://a.test/dead-hop"}])";
    store.record_page(dead);
    // A target with a frontier row of its own keeps that row's state.
    PageRow to_queued = make_page("http://a.test/to-queued", "a.test");
    to_queued.final_url = "http://a.test/queued";
    to_queued.redirect_chain = R"([{"status":301,"url":"http://a.test/to-queued"}])";
    store.record_page(to_queued);
    // Not JSON: ignored, not an error.
    PageRow garbled = make_page("http://a.test/garbled", "a.test");
    garbled.redirect_chain = "[{";
    garbled.final_url = "http://a.test/garbled-target";
    store.record_page(garbled);
  }
  CrawlStore store(path.str());
  const ResumeState state = store.load_resume_state();
  std::map<std::uint64_t, std::pair<std::int32_t, bool>> seen;
  for (const SeenUrl& url : state.seen)
    seen[url.fingerprint] = {url.depth, url.fetched};
  CHECK(seen.size() == 6 + 3);  // the frontier rows, /hop, /target, /garbled-target
  CHECK(seen.at(url_fingerprint("http://a.test/hop")) == std::pair<std::int32_t, bool>{2, true});
  CHECK(seen.at(url_fingerprint("http://a.test/target")) == std::pair<std::int32_t, bool>{2, true});
  CHECK(seen.at(url_fingerprint("http://a.test/garbled-target")).second);
  CHECK_FALSE(seen.at(url_fingerprint("http://a.test/queued")).second);
  CHECK(seen.count(url_fingerprint("http://a.test/not-asked")) == 0);
  CHECK(seen.count(url_fingerprint("http://a.test/dead-hop")) == 0);
  CHECK(seen.count(url_fingerprint("http://a.test/dead-target")) == 0);
  CHECK(state.settled == 0);
  CHECK(state.queued == 6);
}

TEST_CASE("relink_fetched lowers a done row and returns the links its fetch followed", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.add_frontier({entry(1, "http://a.test/x", 3, "http://a.test/2")});
  store.settle_frontier("http://a.test/x", FrontierState::done);
  PageRow page = make_page("http://a.test/x", "a.test");
  page.depth = 3;
  page.links = {LinkRow{"http://a.test/y", false, true}, LinkRow{"http://other.test/", false, false},
                LinkRow{"http://a.test/nf", true, false}, LinkRow{"http://a.test/z", false, true}};
  store.record_page(page);
  CHECK(store.relink_fetched(entry(0, "http://a.test/x", 1, "http://b.test/"))
        == std::vector<std::string>{"http://a.test/y", "http://a.test/z"});
  store.flush();
  CHECK(scalar(path.str(), "SELECT depth FROM frontier WHERE url = 'http://a.test/x'") == 1);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE url = 'http://a.test/x' AND parent_url = 'http://b.test/'")
        == 1);
  CHECK(scalar(path.str(), "SELECT depth FROM pages WHERE url = 'http://a.test/x'") == 1);
  CHECK(scalar(path.str(), "SELECT state FROM frontier WHERE url = 'http://a.test/x'") == 1);
  // Never raised; an unknown page has no links.
  CHECK(store.relink_fetched(entry(0, "http://a.test/x", 2, "http://c.test/")).size() == 2);
  store.flush();
  CHECK(scalar(path.str(), "SELECT depth FROM frontier WHERE url = 'http://a.test/x'") == 1);
  CHECK(store.relink_fetched(entry(0, "http://a.test/never", 0, "")).empty());
}

TEST_CASE("batches are invisible to other connections until committed", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str(), 3);
  SQLite::Database reader(path.str(), SQLite::OPEN_READONLY);
  const auto rows = [&] { return reader.execAndGet("SELECT COUNT(*) FROM frontier").getInt64(); };

  store.add_frontier({entry(1, "http://a.test/1")});
  store.add_frontier({entry(2, "http://a.test/2")});
  CHECK(store.pending_ops() == 2);
  CHECK(rows() == 0);

  store.flush();
  CHECK(store.pending_ops() == 0);
  CHECK(rows() == 2);

  // The third write of a batch of three commits it.
  store.settle_frontier("http://a.test/1", FrontierState::done);
  store.add_frontier({entry(3, "http://a.test/3")});
  CHECK(rows() == 2);
  store.add_frontier({entry(4, "http://a.test/4")});
  CHECK(store.pending_ops() == 0);
  CHECK(rows() == 4);

  // A call is never split: five rows in one call commit together.
  store.add_frontier({entry(5, "http://a.test/5"), entry(6, "http://a.test/6"),
                      entry(7, "http://a.test/7"), entry(8, "http://a.test/8"),
                      entry(9, "http://a.test/9")});
  CHECK(store.pending_ops() == 0);
  CHECK(rows() == 9);

  // A read commits the open batch first.
  store.record_page(make_page("http://a.test/1", "a.test"));
  CHECK(reader.execAndGet("SELECT COUNT(*) FROM pages").getInt64() == 0);
  store.summary(0);
  CHECK(reader.execAndGet("SELECT COUNT(*) FROM pages").getInt64() == 1);
}

TEST_CASE("the destructor commits and a reopened store sees the data", "[store]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    PageRow page = make_page("http://a.test/", "a.test");
    page.title = "A";
    page.links = {{"http://b.test/", false}};
    page.link_host_keys = {"b.test"};
    store.record_page(page);
    store.add_frontier({entry(1, "http://a.test/")});
    CHECK(store.pending_ops() == 2);
  }
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages") == 1);
  {
    CrawlStore store(path.str());
    store.record_page(make_page("http://b.test/", "b.test"));
    PageRow again = make_page("http://a.test/z", "a.test");
    again.link_host_keys = {"b.test"};
    store.record_page(again);
    store.add_frontier({entry(1, "http://a.test/")});
    CHECK(store.load_queued(0, 10).size() == 1);
  }
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM nodes") == 2);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM pages") == 3);
  CHECK(node(path.str(), "a.test").crawl_count == 2);
  CHECK(node(path.str(), "a.test").description == "A");
  CHECK(node(path.str(), "b.test").crawl_count == 1);
  CHECK(edges(path.str())[{"a.test", "b.test"}] == 2);
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
}

TEST_CASE("re-drive takes letters by reason and age and queues their rows in one transaction", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.add_frontier({FrontierEntry{1, "http://a.test/x", 2, ""}, FrontierEntry{2, "http://b.test/", 0, ""},
                      FrontierEntry{3, "http://c.test/", 1, ""}, FrontierEntry{4, "http://d.test/", 1, ""}});
  store.settle_frontier("http://a.test/x", FrontierState::failed);
  store.settle_frontier("http://b.test/", FrontierState::failed);
  store.refuse_frontier({FrontierRefusal{FrontierEntry{3, "http://c.test/", 1, ""}, "robots_txt"}});
  store.settle_frontier("http://d.test/", FrontierState::done);  // fetched since its letter
  store.record_dead_letter({"http://a.test/x", 2, "http_404", "Not Found", 1, 404, 1111});
  store.record_dead_letter({"http://a.test/x", 2, "http_404", "Not Found", 1, 404, 1200});  // a later run
  store.record_dead_letter({"http://b.test/", 0, "http_410", "", 1, 410, 2222});
  store.record_dead_letter({"http://d.test/", 1, "http_404", "", 1, 404, 1300});
  store.record_dead_letter({"http://e.test/", 3, "http_404", "", 1, 404, 1400});  // no frontier row

  // By reason and age: b.test's letter is neither.
  RedriveReport r = store.redrive_dead_letters(RedriveFilter{"http_404", 2000});
  CHECK(r.letters == 4);
  CHECK(r.requeued == 2);  // a.test/x once for its two letters, e.test new
  CHECK(r.already_queued_or_done == 1);
  REQUIRE(r.by_reason.size() == 1);
  CHECK(r.by_reason[0] == std::pair<std::string, std::int64_t>{"http_404", 4});
  CHECK(store.pending_ops() == 0);  // committed
  CHECK(scalar(path.str(), "SELECT state FROM frontier WHERE url = 'http://a.test/x'") == 0);
  CHECK(scalar(path.str(), "SELECT seq FROM frontier WHERE url = 'http://a.test/x'") == 1);
  CHECK(scalar(path.str(), "SELECT state FROM frontier WHERE url = 'http://b.test/'") == 2);
  CHECK(scalar(path.str(), "SELECT state FROM frontier WHERE url = 'http://d.test/'") == 1);
  CHECK(scalar(path.str(), "SELECT seq FROM frontier WHERE url = 'http://e.test/'") == 5);
  CHECK(scalar(path.str(), "SELECT depth FROM frontier WHERE url = 'http://e.test/'") == 3);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM dead_letters WHERE redriven = 1") == 4);

  // Taken once: the rest, of any reason.
  r = store.redrive_dead_letters(RedriveFilter{});
  CHECK(r.letters == 1);
  CHECK(r.requeued == 1);
  CHECK(scalar(path.str(), "SELECT state FROM frontier WHERE url = 'http://b.test/'") == 0);
  CHECK(store.redrive_dead_letters(RedriveFilter{}).letters == 0);
  // The re-driven rows are what the next run loads.
  CHECK(store.load_queued(0, 100).size() == 3);
}

TEST_CASE("re-drive keeps letters and rows together when the process dies before the commit", "[store]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    store.add_frontier({FrontierEntry{1, "http://a.test/x", 2, ""}});
    store.settle_frontier("http://a.test/x", FrontierState::failed);
    store.record_dead_letter({"http://a.test/x", 2, "http_404", "", 1, 404, 1111});
    store.flush();
  }
  // A writer that marks the letter and dies before committing: neither the
  // mark nor the row survives.
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
    SQLite::Transaction t(db);
    db.exec("UPDATE dead_letters SET redriven = 1");
    db.exec("UPDATE frontier SET state = 0");
  }  // rolled back
  CHECK(scalar(path.str(), "SELECT redriven FROM dead_letters") == 0);
  CrawlStore store(path.str());
  CHECK(store.redrive_dead_letters(RedriveFilter{}).requeued == 1);
}

TEST_CASE("parked rows keep their reason and are queued again for the next run", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.add_frontier({FrontierEntry{1, "http://a.test/", 0, ""}, FrontierEntry{2, "http://b.test/", 0, ""}});
  store.park_frontier({FrontierRefusal{FrontierEntry{1, "http://a.test/", 0, ""}, "dns_failure"}});
  store.flush();
  CHECK(scalar(path.str(), "SELECT state FROM frontier WHERE seq = 1") == 4);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq = 1 AND refusal = 'dns_failure'") == 1);
  // Not loaded by refills of this run.
  CHECK(store.load_queued(0, 100).size() == 1);
  ResumeState before = store.load_resume_state();
  CHECK(before.queued == 1);
  CHECK(before.settled == 0);
  CHECK(store.requeue_parked() == 1);
  CHECK(store.load_resume_state().queued == 2);
  // Fetched at last: no failure is named any more.
  store.settle_frontier("http://a.test/", FrontierState::done);
  store.flush();
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq = 1 AND refusal IS NULL AND state = 1") == 1);
}

TEST_CASE("runs are recorded and written through", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  const auto first = store.begin_run(1000, R"(["http://a.test/"])");
  CHECK(store.pending_ops() == 0);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM crawl_runs WHERE ended_at IS NULL") == 1);
  store.end_run(first, 5000, "frontier_exhausted");
  const auto second = store.begin_run(6000, "[]");
  CHECK(second != first);

  SQLite::Database db(path.str(), SQLite::OPEN_READONLY);
  SQLite::Statement q(
      db, "SELECT started_at, ended_at, termination_reason, seeds FROM crawl_runs WHERE run_id = ?");
  q.bind(1, first);
  REQUIRE(q.executeStep());
  CHECK(q.getColumn(0).getInt64() == 1000);
  CHECK(q.getColumn(1).getInt64() == 5000);
  CHECK(q.getColumn(2).getString() == "frontier_exhausted");
  CHECK(q.getColumn(3).getString() == R"(["http://a.test/"])");
}

TEST_CASE("link_targets is built for a domains resume alone, with every link, and never left stale", "[store]") {
  TempDbPath path;
  const std::string targets_table =
      "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'link_targets'";
  {
    // A file from before, whose run's end built it: gone when a run begins
    // (it would be stale once that run writes a page).
    CrawlStore store(path.str());
    store.end_run(store.begin_run(1000, "[]"), 1500, "frontier_exhausted");
  }
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
    build_link_targets(db);
  }
  CHECK(scalar(path.str(), targets_table) == 1);
  CrawlStore store(path.str());
  const auto first = store.begin_run(2000, "[]");
  CHECK(scalar(path.str(), targets_table) == 0);
  PageRow page = make_page("http://a.test/", "a.test");
  page.links = {{"http://a.test/x", false}, {"http://b.test/y", false}};
  store.record_page(page);
  store.end_run(first, 3000, "frontier_exhausted");
  // No run's end builds it: a crawl does not pay for what only the page
  // graph's export would read faster.
  CHECK(scalar(path.str(), targets_table) == 0);

  // A domains resume searches links by target: built with every link for
  // that read, which finds b.test's root through them, and dropped after.
  const auto second = store.begin_run(4000, "[]");
  PageRow other = make_page("http://c.test/", "c.test");
  other.links = {{"https://b.test/", true}};
  other.link_host_keys = {"b.test"};
  store.record_page(other);
  store.end_run(second, 5000, "frontier_exhausted");
  store.begin_run(6000, "[]");
  const DomainResume resume = store.load_domain_resume("a.test", 10);
  CHECK(scalar(path.str(), targets_table) == 0);
  CHECK(resume.seed_known);
  const auto b = std::find_if(resume.nodes.begin(), resume.nodes.end(),
                              [](const DomainNode& n) { return n.host_key == "b.test"; });
  REQUIRE(b != resume.nodes.end());
  CHECK(b->root_url == "https://b.test/");  // the link's scheme: without it, http
}

TEST_CASE("summary counts the graph and the pages since a time", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  CHECK(store.summary(0).nodes_discovered == 0);
  CHECK(store.summary(0).avg_fetch_time_ms == 0);

  PageRow old_page = make_page("http://a.test/old", "a.test");
  old_page.fetched_at_ms = 50;
  old_page.fetch_ms = 1000;
  store.record_page(old_page);

  PageRow p1 = make_page("http://a.test/1", "a.test");
  p1.fetched_at_ms = 200;
  p1.fetch_ms = 10;
  p1.link_host_keys = {"b.test", "c.test"};
  store.record_page(p1);
  PageRow p2 = make_page("http://b.test/2", "b.test");
  p2.fetched_at_ms = 300;
  p2.fetch_ms = 21;
  p2.link_host_keys = {"a.test"};
  store.record_page(p2);
  PageRow failed = make_page("http://c.test/3", "c.test");
  failed.fetched_at_ms = 400;
  failed.fetch_ms = 5000;
  failed.error = "timeout";
  store.record_page(failed);

  const StoreSummary s = store.summary(100);
  CHECK(s.nodes_discovered == 3);
  CHECK(s.nodes_crawled == 3);
  CHECK(s.edges_recorded == 3);
  CHECK(s.pages_fetched == 2);
  CHECK(s.pages_failed == 1);
  CHECK(s.avg_fetch_time_ms == 16);  // (10 + 21) / 2 = 15.5, rounded

  const StoreSummary all = store.summary(0);
  CHECK(all.pages_fetched == 3);
  CHECK(all.avg_fetch_time_ms == 344);  // (1000 + 10 + 21) / 3
}

TEST_CASE("unusable databases raise StoreError naming the path", "[store]") {
  SECTION("a path in a missing directory") {
    const std::string path =
        (fs::temp_directory_path() / "crawl_store_no_such_dir_7f3a" / "crawl.db").string();
    try {
      CrawlStore store(path);
      FAIL("opened " << path);
    } catch (const StoreError& e) {
      const std::string message = e.what();
      CHECK(message.find("cannot open database '" + path + "'") != std::string::npos);
      // The lock file, made before the database, is the first to fail.
      CHECK(message.find("cannot create its lock file '" + path + ".lock': No such file or directory") !=
            std::string::npos);
    }
  }
  SECTION("a file that is not a database") {
    TempDbPath path;
    {
      std::ofstream out(path.str(), std::ios::binary);
      for (int i = 0; i < 64; ++i)
        out << "this is a plain text file, not an SQLite database\n";
    }
    try {
      CrawlStore store(path.str());
      FAIL("opened a text file");
    } catch (const StoreError& e) {
      const std::string message = e.what();
      CHECK(message.find("cannot open database '" + path.str() + "'") != std::string::npos);
      CHECK(message.find("file is not a database") != std::string::npos);
    }
  }
  SECTION("a schema newer than this program") {
    TempDbPath path;
    {
      SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
      db.exec("PRAGMA user_version = 99");
    }
    CHECK_THROWS_AS(CrawlStore(path.str()), StoreError);
  }
  SECTION("a read-only file") {
    TempDbPath path;
    { CrawlStore store(path.str()); }
    fs::permissions(path.str(), fs::perms::owner_read | fs::perms::group_read |
                                    fs::perms::others_read);
    // Permission bits do not bind the superuser; there is nothing to test then.
    if (::geteuid() != 0)
      CHECK_THROWS_AS(CrawlStore(path.str()), StoreError);
  }
}

TEST_CASE("write_frontier_changes applies a delta in order as one call: all of it or none", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.add_frontier({entry(1, "http://a.test/1"), entry(2, "http://a.test/2"), entry(3, "http://a.test/3")});
  const std::vector<FrontierEntry> added = {entry(4, "http://a.test/4"), entry(5, "http://a.test/5")};
  const std::vector<FrontierEntry> requeued = {entry(6, "http://a.test/3", 0)};
  const std::vector<std::string> done = {"http://a.test/1", "http://a.test/4"};  // 4: added just before
  const std::vector<std::string> failed = {"http://a.test/2"};
  const std::vector<FrontierRefusal> refused = {{entry(7, "http://b.test/"), "robots"}};
  const std::vector<FrontierRefusal> parked = {{entry(5, "http://a.test/5"), "dns"}};
  store.write_frontier_changes({added, requeued, done, failed, refused, parked});
  CHECK(store.pending_ops() == 3 + 2 + 1 + 2 + 1 + 1 + 1);
  store.flush();
  const auto state = [&](const std::string& url) {
    return scalar(path.str(), "SELECT state FROM frontier WHERE url = '" + url + "'");
  };
  CHECK(state("http://a.test/1") == static_cast<int>(FrontierState::done));
  CHECK(state("http://a.test/4") == static_cast<int>(FrontierState::done));
  CHECK(state("http://a.test/2") == static_cast<int>(FrontierState::failed));
  CHECK(state("http://a.test/3") == static_cast<int>(FrontierState::queued));
  CHECK(scalar(path.str(), "SELECT seq FROM frontier WHERE url = 'http://a.test/3'") == 6);
  CHECK(state("http://b.test/") == static_cast<int>(FrontierState::refused));
  CHECK(state("http://a.test/5") == static_cast<int>(FrontierState::parked));

  // seq 8 twice: the delta fails, and its settle of /3 is undone with it.
  const std::vector<FrontierEntry> clash = {entry(8, "http://a.test/8"), entry(8, "http://a.test/9")};
  const std::vector<std::string> settle_3 = {"http://a.test/3"};
  const std::vector<FrontierEntry> none;
  const std::vector<std::string> no_urls;
  const std::vector<FrontierRefusal> no_refusals;
  CHECK_THROWS_AS(store.write_frontier_changes({clash, none, settle_3, no_urls, no_refusals, no_refusals}),
                  StoreError);
  store.write_frontier_changes({none, none, no_urls, no_urls, no_refusals, no_refusals});  // nothing
  store.flush();
  CHECK(state("http://a.test/3") == static_cast<int>(FrontierState::queued));
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq = 8") == 0);
}

TEST_CASE("a failed write is undone alone and reported as StoreError", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  store.add_frontier({entry(1, "http://a.test/1")});
  store.add_frontier({entry(2, "http://a.test/2")});

  // seq 2 is taken by another URL: the call fails as a whole.
  try {
    store.add_frontier({entry(3, "http://a.test/3"), entry(2, "http://a.test/other")});
    FAIL("duplicate seq accepted");
  } catch (const StoreError& e) {
    CHECK(std::string(e.what()).find("add_frontier failed on database '" + path.str() + "'") !=
          std::string::npos);
  }
  CHECK(store.pending_ops() == 2);
  store.flush();
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier") == 2);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq = 3") == 0);

  // The store keeps working afterwards.
  store.add_frontier({entry(3, "http://a.test/3")});
  CHECK(store.load_queued(0, 10).size() == 3);
}

TEST_CASE("a seed database with only nodes and edges is upgraded in place", "[store]") {
  TempDbPath path;
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(R"sql(
        CREATE TABLE nodes (
            node_id INTEGER PRIMARY KEY AUTOINCREMENT,
            domain_name TEXT UNIQUE NOT NULL,
            description TEXT,
            crawl_count INTEGER DEFAULT 0,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
        );
        CREATE TABLE edges (
            edge_id INTEGER PRIMARY KEY AUTOINCREMENT,
            from_node_id INTEGER NOT NULL,
            to_node_id INTEGER NOT NULL,
            weight INTEGER DEFAULT 1,
            FOREIGN KEY (from_node_id) REFERENCES nodes(node_id),
            FOREIGN KEY (to_node_id) REFERENCES nodes(node_id),
            UNIQUE(from_node_id, to_node_id)
        );
        INSERT INTO nodes(domain_name, description, crawl_count) VALUES ('a.test', 'Old A', 4);
        INSERT INTO nodes(domain_name) VALUES ('b.test');
        INSERT INTO edges(from_node_id, to_node_id, weight) VALUES (1, 2, 7);)sql");
  }
  CrawlStore store(path.str());
  PageRow page = make_page("http://a.test/deep", "a.test");
  page.title = "New A";
  page.link_host_keys = {"b.test"};
  store.record_page(page);
  store.flush();
  CHECK(node(path.str(), "a.test").crawl_count == 5);
  CHECK(node(path.str(), "a.test").description == "Old A");
  CHECK(edges(path.str())[{"a.test", "b.test"}] == 8);
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
}

TEST_CASE("100k frontier rows insert and resume", "[store]") {
  TempDbPath path;
  CrawlStore store(path.str());
  constexpr int kRows = 100000;
  constexpr int kPerCall = 50;  // the Frontier adds one page's links at a time
  std::vector<FrontierEntry> chunk;
  for (int seq = 1; seq <= kRows; ++seq) {
    chunk.push_back(entry(seq, "http://host" + std::to_string(seq % 997) + ".test/page/" +
                                   std::to_string(seq),
                          seq % 5, "http://host0.test/"));
    if (chunk.size() == kPerCall) {
      store.add_frontier(chunk);
      chunk.clear();
    }
  }
  store.flush();
  const ResumeState state = store.load_resume_state();
  CHECK(state.seen.size() == kRows);
  CHECK(state.next_seq == kRows + 1);
  CHECK(state.queued == kRows);
  CHECK(store.load_queued(kRows - 9, 100).size() == 10);
}

TEST_CASE("sitemaps: where runs left documents unread, the topmost of each chain, for the next run",
          "[store][sitemaps]") {
  TempDbPath path;
  CrawlStore store(path.str());
  const auto row = [](std::string url, std::string status, std::string reason, std::string named_by) {
    return SitemapRow{std::move(url), "a.test", std::move(status), std::move(reason), 0, 0, 100, std::move(named_by)};
  };
  const std::string robots = "http://a.test/robots.txt";
  store.record_sitemaps({row("http://a.test/top.xml", "fetched", "", robots),
                         row("http://a.test/mid.xml", "fetched", "", "http://a.test/top.xml"),
                         row("http://a.test/leaf1.xml", "fetched", "", "http://a.test/mid.xml"),
                         row("http://a.test/leaf2.xml", "failed", "max_pages", "http://a.test/mid.xml"),
                         row("http://a.test/alone.xml", "failed", "stopped", robots),
                         row("http://a.test/broken.xml", "failed", "http_404", robots)},
                        {});
  // The ledger marks the indexes above leaf2; the mark keeps what named them.
  store.record_sitemaps({row("http://a.test/mid.xml", "fetched", "children_unread", ""),
                         row("http://a.test/top.xml", "fetched", "children_unread", "")},
                        {});
  store.flush();
  CHECK(store.sitemaps_unfinished() == std::vector<std::string>{"http://a.test/alone.xml", "http://a.test/top.xml"});
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM sitemaps WHERE url = 'http://a.test/mid.xml' AND named_by = "
                           "'http://a.test/top.xml'") == 1);
  // A marked index is no longer "read": the next run fetches it again.
  auto read = store.sitemaps_read(0);
  std::sort(read.begin(), read.end());
  CHECK(read == std::vector<std::string>{"http://a.test/leaf1.xml"});
}

TEST_CASE("a version 7 database gains sitemaps.named_by", "[store][sitemaps]") {
  TempDbPath path;
  {
    CrawlStore store(path.str());
    store.record_sitemaps({SitemapRow{"http://a.test/s.xml", "a.test", "failed", "stopped", 0, 0, 100, ""}}, {});
  }
  {
    SQLite::Database db(path.str(), SQLite::OPEN_READWRITE);
    db.exec("ALTER TABLE sitemaps DROP COLUMN named_by; PRAGMA user_version = 7");
  }
  CrawlStore store(path.str());
  CHECK(scalar(path.str(), "PRAGMA user_version") == kCrawlSchemaVersion);
  CHECK(store.sitemaps_unfinished() == std::vector<std::string>{"http://a.test/s.xml"});
}

TEST_CASE("sitemaps: outcomes upserted by URL (a refusal never over a fetch), read ones for the next run, lastmod kept",
          "[store][sitemaps]") {
  TempDbPath path;
  CrawlStore store(path.str());
  FrontierEntry listed{1, "http://a.test/p", 1, "http://a.test/s.xml", 1704153600000};
  store.add_frontier({listed, FrontierEntry{2, "http://a.test/q", 1, "http://a.test/", 0}});
  store.record_sitemaps({SitemapRow{"http://a.test/s.xml", "a.test", "fetched", "", 2, 1, 100, ""},
                         SitemapRow{"http://a.test/old.xml", "a.test", "fetched", "", 0, 0, 10, ""},
                         SitemapRow{"http://a.test/gone.xml", "a.test", "failed", "http_404", 0, 0, 100, ""},
                         SitemapRow{"http://a.test/moved.xml", "a.test", "redirected", "http_301", 0, 0, 100, ""}},
                        {SitemapOutcomeCount{"sitemap_seen", 2}});
  // Named again and refused: the document's own outcome stays.
  store.record_sitemaps({SitemapRow{"http://a.test/s.xml", "a.test", "refused", "sitemap_depth", 0, 0, 200, ""}}, {});
  store.flush();
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM sitemaps WHERE url = 'http://a.test/s.xml' AND status = 'fetched'") == 1);
  CHECK(scalar(path.str(), "SELECT lastmod FROM frontier WHERE seq = 1") == 1704153600000);
  CHECK(scalar(path.str(), "SELECT COUNT(*) FROM frontier WHERE seq = 2 AND lastmod IS NULL") == 1);
  // Fetched ones and redirects (their targets have rows of their own);
  // with revisit_after, only the recent ones.
  auto all = store.sitemaps_read(0);
  std::sort(all.begin(), all.end());
  CHECK(all == std::vector<std::string>{"http://a.test/moved.xml", "http://a.test/old.xml", "http://a.test/s.xml"});
  auto recent = store.sitemaps_read(50);
  std::sort(recent.begin(), recent.end());
  CHECK(recent == std::vector<std::string>{"http://a.test/moved.xml", "http://a.test/s.xml"});
  CHECK(store.sitemaps_due(50) == std::vector<std::string>{"http://a.test/old.xml"});
  const auto summary = store.summary(50);
  CHECK(summary.sitemap_urls_queued == 1);
  std::map<std::string, std::int64_t> outcomes;
  for (const auto& o : summary.sitemap_outcomes)
    outcomes[o.outcome] = o.count;
  CHECK(outcomes == std::map<std::string, std::int64_t>{
                      {"fetched", 1}, {"failed/http_404", 1}, {"redirected/http_301", 1},
                      {"not_fetched/sitemap_seen", 2}});
}
