// Recrawls against nginx on loopback, judged by nginx's access log: a
// second run with revisit_after elapsed asks every page conditionally, nginx
// answers 304 for each unchanged file and 200 for the changed ones, and the
// database and `export --format changes` name exactly those. A recrawl
// killed with SIGKILL and run again loses nothing and marks nothing changed
// that did not change. Skipped, with a warning, where nginx is not
// installed.
#include <catch2/catch.hpp>

#include <signal.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "core/export/crawl_export.h"
#include "crawl_fixture.h"
#include "tests/support/local_nginx.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kFirstVersion = 1600000000;  // 2020-09-13T12:26:40Z: the files' time
constexpr std::int64_t kHourMs = 3600 * 1000;

std::string page_file(int i) { return i == 0 ? "index.html" : "p" + std::to_string(i) + ".html"; }

std::string page_body(int i, int pages, const std::string& version) {
  std::string body = "<html><head><title>Page " + std::to_string(i) + " " + version + "</title></head><body>";
  if (i == 0)
    for (int k = 1; k < pages; ++k)
      body += "<a href=\"" + page_file(k) + "\">" + std::to_string(k) + "</a>";
  else
    body += "<a href=\"index.html\">home</a>";
  return body + "</body></html>";
}

// index.html links to p1.html .. p{pages-1}.html, each of which links back.
void build_site(const LocalNginx& server, int pages) {
  for (int i = 0; i < pages; ++i)
    write_static_file(server.root() / page_file(i), page_body(i, pages, "one"), kFirstVersion);
}

// A new body, size and time: both of nginx's validators change.
void change_page(const LocalNginx& server, int i, int pages) {
  write_static_file(server.root() / page_file(i), page_body(i, pages, "two, rewritten"), kFirstVersion + 3600);
}

// The database as if its pages had been fetched two hours ago: revisit_after
// (one hour) has elapsed, with no test waiting for a clock.
void age_database(const std::string& db) {
  SQLite::Database d(db, SQLite::OPEN_READWRITE);
  d.exec("UPDATE frontier SET settled_at = settled_at - " + std::to_string(2 * kHourMs) + " WHERE state = 1");
  d.exec("UPDATE pages SET fetched_at = fetched_at - " + std::to_string(2 * kHourMs));
}

// Page requests (not robots.txt) a crawl with `user_agent` sent.
std::vector<NginxRequest> page_requests_by(const LocalNginx& server, const std::string& user_agent) {
  std::vector<NginxRequest> out;
  for (auto& r : server.requests())
    if (r.uri != "/robots.txt" && r.user_agent == user_agent)
      out.push_back(std::move(r));
  return out;
}

struct ChangeLine {
  std::string url;
  std::int64_t run = 0;
  std::string change;
};

std::vector<ChangeLine> export_changes(const std::string& db, const ChangesFilter& filter) {
  CrawlExport source(db);
  std::ostringstream out;
  source.write(ExportFormat::changes, ExportGraph::domains, out, {}, std::nullopt, filter);
  std::vector<ChangeLine> lines;
  std::istringstream in{out.str()};
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    REQUIRE(j.size() == 3);
    lines.push_back(ChangeLine{j.at("url").get<std::string>(), j.at("run").get<std::int64_t>(),
                               j.at("change").get<std::string>()});
  }
  return lines;
}

std::set<std::string> urls_of(const std::vector<ChangeLine>& lines) {
  std::set<std::string> out;
  for (const auto& l : lines)
    out.insert(l.url);
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a recrawl asks nginx conditionally: 304 for every unchanged page, 200 for the two changed",
          "[integration][recrawl][nginx]") {
  ScratchDir dir;
  ACTORCRAWL_LOCAL_NGINX(server, dir.path("nginx"));
  constexpr int kPages = 9;
  build_site(server, kPages);
  const std::string index = server.url("/index.html");

  auto config = fast_config(dir, index);
  config.revisit_after_ms = kHourMs;
  config.user_agent = "actorcrawl-recrawl-test/first";
  crawl(config);
  const auto first = page_requests_by(server, config.user_agent);
  REQUIRE(first.size() == static_cast<std::size_t>(kPages));
  for (const auto& r : first) {
    INFO(r.uri);
    CHECK(r.status == 200);
    CHECK_FALSE(r.conditional());
  }
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages WHERE etag IS NOT NULL AND last_modified IS NOT NULL "
                              "AND content_digest LIKE 'sha1:%'") == kPages);

  age_database(config.db_path);
  change_page(server, 2, kPages);
  change_page(server, 5, kPages);
  config.user_agent = "actorcrawl-recrawl-test/second";
  const auto second_run = crawl(config);
  CHECK(second_run.termination_reason == "queue_empty");

  // The server's record: each page once, every request conditional, 304
  // for the unchanged pages and 200 for the two that changed.
  const auto second = page_requests_by(server, config.user_agent);
  std::map<std::string, int> answers;
  for (const auto& r : second) {
    INFO(r.uri);
    CHECK(r.conditional());
    CHECK_FALSE(r.if_none_match.empty());
    CHECK(answers.count(r.uri) == 0);
    answers[r.uri] = r.status;
  }
  REQUIRE(answers.size() == static_cast<std::size_t>(kPages));
  for (int i = 0; i < kPages; ++i) {
    INFO(page_file(i));
    CHECK(answers["/" + page_file(i)] == (i == 2 || i == 5 ? 200 : 304));
  }

  const std::set<std::string> changed = {server.url("/p2.html"), server.url("/p5.html")};
  const std::string run2 = "(SELECT MAX(run_id) FROM crawl_runs)";
  CHECK(column(config.db_path, "SELECT url FROM page_changes WHERE change = 'changed' AND run_id = " + run2 +
                                 " ORDER BY url") == std::vector<std::string>(changed.begin(), changed.end()));
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM page_changes WHERE change = 'unchanged' AND run_id = " + run2) ==
        kPages - 2);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM page_changes WHERE change IN ('new', 'gone') AND run_id = " +
                                run2) == 0);
  CHECK(count(config.db_path, "SELECT pages_changed FROM crawl_runs WHERE run_id = " + run2) == 2);
  CHECK(count(config.db_path, "SELECT pages_unchanged FROM crawl_runs WHERE run_id = " + run2) == kPages - 2);
  CHECK(second_run.summary.changes.changed == 2);
  CHECK(second_run.summary.changes.unchanged == kPages - 2);
  // The unchanged pages kept their rows; the changed ones took the new text.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages WHERE title LIKE '% one'") == kPages - 2);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages WHERE title LIKE '% two, rewritten'") == 2);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == kPages);
  // The index's links are kept through its 304.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM links l JOIN pages p ON p.page_id = l.from_page_id WHERE p.url = '" +
                                index + "'") == kPages - 1);
  const auto metrics = nlohmann::json::parse(read_text(config.metrics_path));
  CHECK(metrics.at("pages_changed") == 2);
  CHECK(metrics.at("pages_unchanged") == kPages - 2);
  CHECK(metrics.at("pages_new") == 0);

  // export --format changes names exactly the two.
  const auto lines = export_changes(config.db_path, ChangesFilter{});
  CHECK(urls_of(lines) == changed);
  REQUIRE(lines.size() == 2);
  for (const auto& l : lines) {
    CHECK(l.change == "changed");
    CHECK(l.run == 2);
  }
  CHECK(export_changes(config.db_path, ChangesFilter{true, 0}).size() == static_cast<std::size_t>(kPages + 2));
  CHECK(export_changes(config.db_path, ChangesFilter{true, 1}).size() == 2);
  CHECK(export_changes(config.db_path, ChangesFilter{false, 2}).empty());

  // A third run before the interval has passed fetches nothing.
  config.user_agent = "actorcrawl-recrawl-test/third";
  crawl(config);
  CHECK(page_requests_by(server, config.user_agent).empty());
}

TEST_CASE("a recrawl killed with SIGKILL and run again loses nothing and marks nothing changed that did not change",
          "[integration][recrawl][nginx][kill]") {
  ScratchDir dir;
  ACTORCRAWL_LOCAL_NGINX(server, dir.path("nginx"));
  constexpr int kPages = 60;
  build_site(server, kPages);
  const std::string index = server.url("/index.html");
  auto config = fast_config(dir, index);
  config.revisit_after_ms = kHourMs;
  crawl(config);
  REQUIRE(count(config.db_path, "SELECT COUNT(*) FROM pages") == kPages);

  age_database(config.db_path);
  const std::set<int> edited = {3, 17, 29, 41, 58};
  std::set<std::string> edited_urls;
  for (int i : edited) {
    change_page(server, i, kPages);
    edited_urls.insert(server.url("/" + page_file(i)));
  }

  // The recrawl, paced so it is still running when it is killed.
  auto flags = std::vector<std::string>{"crawl", "--seed", index, "--db", config.db_path, "--metrics",
                                        dir.path("metrics2.log"), "--revisit-after", "1h",
                                        "--politeness-delay-ms", "40", "--politeness-delay-factor-percent", "0",
                                        "--progress-interval-ms", "100000", "--sitemaps=false"};
  const std::string killed_agent = "actorcrawl-recrawl-test/killed";
  {
    auto args = flags;
    args.insert(args.end(), {"--user-agent", killed_agent});
    ChildProcess crawler(ACTORCRAWL_BINARY, args, dir.path("killed.log"));
    const auto deadline = Clock::now() + 20s;
    while (Clock::now() < deadline && crawler.running() && page_requests_by(server, killed_agent).size() < 25)
      std::this_thread::sleep_for(2ms);
    crawler.signal(SIGKILL);
    CHECK(crawler.wait(10s).has_value());
  }
  const auto before_kill = page_requests_by(server, killed_agent);
  REQUIRE(before_kill.size() >= 25);
  REQUIRE(before_kill.size() < static_cast<std::size_t>(kPages));

  const std::string resumed_agent = "actorcrawl-recrawl-test/resumed";
  {
    auto args = flags;
    args.insert(args.end(), {"--user-agent", resumed_agent});
    ChildProcess crawler(ACTORCRAWL_BINARY, args, dir.path("resumed.log"));
    const auto code = crawler.wait(60s);
    INFO(crawler.output());
    REQUIRE(code == std::optional<int>{0});
  }
  const auto after_kill = page_requests_by(server, resumed_agent);

  // Every page was asked again by one of the two runs, conditionally; a page
  // asked by both is one the kill caught before its frontier row settled.
  std::set<std::string> asked;
  for (const auto* requests : {&before_kill, &after_kill})
    for (const auto& r : *requests) {
      INFO(r.uri);
      CHECK(r.conditional());
      asked.insert(server.url(r.uri));
      const bool is_edited = edited_urls.count(server.url(r.uri)) > 0;
      // An edited page answers 200 until its new validators are committed.
      if (!is_edited)
        CHECK(r.status == 304);
    }
  CHECK(asked.size() == static_cast<std::size_t>(kPages));

  // Nothing lost: every page still stored, the edited ones with their new text.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == kPages);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM frontier WHERE state <> 1") == 0);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages WHERE title LIKE '% two, rewritten'") ==
        static_cast<std::int64_t>(edited.size()));
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM links") == 2 * (kPages - 1));
  // Nothing marked changed that did not change, and each edit once.
  const auto changed = column(config.db_path, "SELECT url FROM page_changes WHERE change = 'changed' ORDER BY url");
  CHECK(changed == std::vector<std::string>(edited_urls.begin(), edited_urls.end()));
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM page_changes WHERE change = 'gone'") == 0);
  CHECK(urls_of(export_changes(config.db_path, ChangesFilter{})) == edited_urls);
  // Every page has a record from the recrawl's runs.
  CHECK(count(config.db_path, "SELECT COUNT(DISTINCT url) FROM page_changes WHERE run_id > 1") == kPages);
}

TEST_CASE("a long run queues again the pages whose interval passed, and asks for them conditionally",
          "[integration][recrawl][nginx]") {
  ScratchDir dir;
  ACTORCRAWL_LOCAL_NGINX(server, dir.path("nginx"));
  constexpr int kPages = 13;
  constexpr int kBudget = kPages + 6;
  build_site(server, kPages);
  auto config = fast_config(dir, server.url("/index.html"));
  // One host, 100 ms apart: the site takes at least 1.2 s, and its first
  // pages fall due (300 ms) long before it is done. The budget ends the run.
  config.politeness_delay_ms = 100;
  config.politeness_delay_factor_percent = 0;
  config.revisit_after_ms = 300;
  config.revisit_check_interval_ms = 100;
  config.max_pages = kBudget;
  config.user_agent = "actorcrawl-recrawl-test/long-run";
  const auto result = crawl(config);
  CHECK(result.termination_reason == "max_pages");
  const auto requests = page_requests_by(server, config.user_agent);
  REQUIRE(requests.size() == static_cast<std::size_t>(kBudget));
  std::set<std::string> first_seen;
  int revisits = 0;
  for (const auto& r : requests) {
    INFO(r.uri);
    if (first_seen.insert(r.uri).second) {
      CHECK_FALSE(r.conditional());
      CHECK(r.status == 200);
    } else {
      ++revisits;
      CHECK(r.conditional());
      CHECK(r.status == 304);
    }
  }
  CHECK(first_seen.size() == static_cast<std::size_t>(kPages));
  CHECK(revisits == kBudget - kPages);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM page_changes WHERE change = 'unchanged'") == kBudget - kPages);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM page_changes WHERE change = 'new'") == kPages);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM pages") == kPages);
}

// Seed 004's graph counts every crawl of a node: a domains crawl run again
// with a higher max_crawls_per_node asks each host's root conditionally,
// nginx answers 304 (nothing changed), and each such answer still counts
// the node's crawl and its stored outbound links, so every weight doubles
// with the crawl counts.
TEST_CASE("domains: a recrawl answered 304 counts every edge again, so every weight doubles",
          "[integration][recrawl][nginx][domains]") {
  ScratchDir dir;
  ACTORCRAWL_LOCAL_NGINX(server, dir.path("nginx"), /*virtual_hosts=*/true);
  const std::string port = std::to_string(server.port());
  // h1 -> h2, h3; h2 -> h3, h4; h3 -> h4, h5; h4 -> h5, h6; h5 -> h6:
  // six hosts, nine edges.
  const auto root = [&](int i) { return "http://h" + std::to_string(i) + ".test:" + port + "/"; };
  std::vector<std::string> resolve;
  for (int i = 1; i <= 6; ++i) {
    std::string body = "<html><head><title>H" + std::to_string(i) + "</title></head><body>";
    for (int j = i + 1; j <= std::min(i + 2, 6); ++j)
      body += "<a href=\"" + root(j) + "\">h" + std::to_string(j) + "</a>";
    body += "<a href=\"/about.html\">about</a></body></html>";
    const auto site = server.root() / ("h" + std::to_string(i) + ".test");
    std::filesystem::create_directories(site);
    write_static_file(site / "index.html", body, kFirstVersion);
    resolve.push_back("h" + std::to_string(i) + ".test:" + port + ":127.0.0.1");
  }
  auto config = fast_config(dir, root(1));
  config.profile = "domains";
  config.resolve = resolve;
  config.max_crawls_per_node = 1;
  const auto weights = [&] {
    return column(config.db_path, R"(SELECT f.domain_name || ' -> ' || t.domain_name || ' ' || e.weight FROM edges e
                                     JOIN nodes f ON f.node_id = e.from_node_id JOIN nodes t ON t.node_id = e.to_node_id
                                     ORDER BY f.domain_name, t.domain_name)");
  };
  const auto with_weight = [&](int weight) {
    std::vector<std::string> out;
    for (int i = 1; i <= 5; ++i)
      for (int j = i + 1; j <= std::min(i + 2, 6); ++j)
        out.push_back("h" + std::to_string(i) + ".test:" + port + " -> h" + std::to_string(j) + ".test:" + port + " " +
                      std::to_string(weight));
    return out;
  };
  crawl(config);
  REQUIRE(weights() == with_weight(1));
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM nodes WHERE crawl_count = 1") == 6);

  config.max_crawls_per_node = 2;
  const auto second = crawl(config);
  CHECK(second.summary.changes.unchanged == 6);
  CHECK(weights() == with_weight(2));
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM nodes WHERE crawl_count = 2") == 6);
  // Judged by nginx: the second run asked each root once, conditionally,
  // and was answered 304 every time.
  std::map<std::string, std::vector<int>> statuses;  // host -> the root's answers, in order
  for (const auto& r : server.requests())
    if (r.uri == "/index.html" || r.uri == "/")
      statuses[r.host].push_back(r.conditional() ? r.status : -r.status);
  CHECK(statuses.size() == 6);
  for (const auto& [host, answers] : statuses) {
    INFO(host);
    CHECK(answers == std::vector<int>{-200, 304});
  }
}

// A server that answers 304 though nothing was asked conditionally (the
// URL's first fetch sends no validators): the answer is stored as what it
// is, a page with status 304 and no body, counted new like any first answer,
// and a 200 after it is a change.
TEST_CASE("a 304 to a first, unconditional request is a new page, and the 200 after it a change",
          "[integration][recrawl]") {
  ScratchDir dir;
  demoweb::LoopbackWeb web;
  const auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Home", {"/odd"})));
  demoweb::Response odd;
  odd.status = 304;
  web.route(h, "/odd", odd);
  auto config = fast_config(dir, demoweb::LoopbackWeb::url(h, "/"));
  const auto first = crawl(config);
  const std::string odd_url = demoweb::LoopbackWeb::url(h, "/odd");
  CHECK(first.summary.pages_fetched == 2);
  CHECK(first.summary.changes.new_pages == 2);
  CHECK(column(config.db_path, "SELECT status_code || ' ' || bytes FROM pages WHERE url = '" +
                                 odd_url + "'") == std::vector<std::string>{"304 0"});
  CHECK(column(config.db_path, "SELECT change FROM page_changes WHERE url = '" + odd_url + "'") ==
        std::vector<std::string>{"new"});

  // Asked again (nothing stored to send: a 304 brings no validators), it
  // answers a page now.
  web.route(h, "/odd", html(page("Odd", {})));
  config.revisit_after_ms = 1;
  config.max_pages = 2;
  crawl(config);
  CHECK(web.count(h, "/odd") == 2);
  CHECK(column(config.db_path, "SELECT change FROM page_changes WHERE url = '" + odd_url + "' ORDER BY run_id") ==
        std::vector<std::string>{"new", "changed"});
}
