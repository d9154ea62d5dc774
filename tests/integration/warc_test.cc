// The warc processor end to end, checked by an outside reader: a crawl of a
// small web (a gzip-encoded page, a redirect, a page over max_body_bytes, two
// pages with one body, a 404) writes .warc.gz files that warcio.js reads
// record by record (tests/warc/read_warc.mjs), every digest recomputed; what
// it finds is compared with the pages table. A crawl killed with SIGKILL and
// resumed leaves files the reader reads whole.
//
// Hidden from the default run ([.]): they need Node.js and warcio, which
// scripts/warc-test.sh installs (npm ci in tests/warc) before running them:
//   bash scripts/warc-test.sh     (or ctest -R warc)
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include "child_process.h"
#include "core/warc/warc_writer.h"
#include "crawl_fixture.h"
#include "tests/support/local_nginx.h"
#include "tests/unit/warc/warc_files.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::Response;
using demoweb::LoopbackWeb;
using json = nlohmann::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// What the reader printed, and how it exited.
struct Reading {
  json report;
  int exit_code = -1;
};

Reading read_warcs(const std::string& dir) {
  const char* reader = std::getenv("ACTORCRAWL_WARC_READER");
  const std::string script = reader != nullptr ? reader : ACTORCRAWL_SOURCE_DIR "/tests/warc/read_warc.mjs";
  const std::string command = "timeout 60 node '" + script + "' '" + dir + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0)
    out.append(buf, n);
  const int status = ::pclose(pipe);
  Reading r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.report = json::parse(out, nullptr, false);
  INFO(out);
  REQUIRE_FALSE(r.report.is_discarded());
  return r;
}

std::string gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Response records by target URI: status, and whether truncated.
std::map<std::string, json> by_uri(const json& records) {
  std::map<std::string, json> out;
  for (const auto& r : records)
    out[r.at("uri").get<std::string>()] = r;
  return out;
}

// The target URIs of every response and revisit the reader found.
std::set<std::string> archived_uris(const json& report) {
  std::set<std::string> out;
  for (const char* kind : {"responses", "revisits"})
    for (const auto& r : report.at(kind))
      out.insert(r.at("uri").get<std::string>());
  return out;
}

// Every page the database holds has a response (or revisit) in the archive.
void check_every_page_archived(const std::string& db, const std::set<std::string>& archived, std::size_t pages) {
  const auto urls = column(db, "SELECT url FROM pages");
  CHECK(urls.size() == pages);
  for (const auto& url : urls) {
    INFO(url);
    CHECK(archived.count(url) == 1);
  }
}

}  // namespace

TEST_CASE("warc: every response of a crawl is in the archive, and warcio verifies every digest",
          "[.][warc][integration]") {
  ScratchDir dir;
  LoopbackWeb web;
  const std::string host = web.add_host("127.0.0.1");
  const auto url = [&](const std::string& path) { return LoopbackWeb::url(host, path); };
  const std::string gz_page = page("Compressed", {"/"}) + std::string(1500, ' ') + "<p>end</p>";
  const std::string same = page("Same", {"/"});
  web.route(host, "/", testing::html(page("Root", {"/gz", "/moved", "/big", "/same-1", "/same-2", "/missing", "/flaky"})));
  // 503 once, then the page: both answers are archived.
  web.route(host, "/flaky", [](int hit) {
    return hit == 1 ? testing::html("<p>busy</p>", 503) : testing::html(page("Flaky", {"/"}));
  });
  Response compressed = testing::html(gzip(gz_page));
  compressed.headers = {{"Content-Encoding", "gzip"}};
  web.route(host, "/gz", compressed);
  web.route(host, "/moved", redirect(301, "/target"));
  web.route(host, "/target", testing::html(page("Target", {"/"})));
  web.route(host, "/big", testing::html("<html><title>Big</title>" + std::string(3000, 'x')));
  web.route(host, "/same-1", testing::html(same));
  web.route(host, "/same-2", testing::html(same));

  CrawlConfig c = fast_config(dir, url("/"));
  c.processors = {"html_links", "warc"};
  c.warc_dir = dir.path("warc");
  c.max_body_bytes = 2048;
  c.concurrent_workers = 1;  // same-1 is fetched before same-2: the revisit is same-2's
  c.transfers_per_worker = 1;
  c.allowed_domains = {"127.0.0.1"};
  crawl(c);

  const Reading reading = read_warcs(c.warc_dir);
  INFO(reading.report.dump(1));
  CHECK(reading.report.at("errors") == json::array());
  CHECK(reading.exit_code == 0);
  const json& r = reading.report;
  CHECK(r.at("files") == 1);
  CHECK(r.at("by_type").at("warcinfo") == 1);
  const auto responses = by_uri(r.at("responses"));
  const auto revisits = by_uri(r.at("revisits"));
  // robots.txt (404 here), the seven pages, the redirect hop and its
  // target, the 503 before /flaky's page; /missing's 404 body is
  // robots.txt's, so it is a revisit too.
  CHECK(r.at("by_type").at("request") == 11);
  CHECK(r.at("by_type").at("response") == 9);
  CHECK(r.at("by_type").at("revisit") == 2);
  std::multiset<std::int64_t> flaky;
  for (const auto& rec : r.at("responses"))
    if (rec.at("uri") == url("/flaky"))
      flaky.insert(rec.at("status").get<std::int64_t>());
  CHECK(flaky == std::multiset<std::int64_t>{200, 503});

  // Every fetched URL of the pages table has its response, with its status.
  const std::string db = c.db_path;
  const auto pages = column(db, "SELECT final_url || ' ' || status_code || ' ' || IFNULL(truncated, 0) FROM pages");
  CHECK(pages.size() == 8);
  for (const auto& row : column(db, "SELECT final_url FROM pages")) {
    INFO(row);
    const std::int64_t status = count(db, "SELECT status_code FROM pages WHERE final_url = '" + row + "'");
    const std::int64_t truncated = count(db, "SELECT IFNULL(truncated, 0) FROM pages WHERE final_url = '" + row + "'");
    if (revisits.count(row) != 0) {
      CHECK(revisits.at(row).at("status") == status);
      continue;
    }
    REQUIRE(responses.count(row) == 1);
    CHECK(responses.at(row).at("status") == status);
    CHECK((responses.at(row).at("truncated") == "length") == (truncated == 1));
  }
  // The redirect hop is archived as the 301 it was.
  REQUIRE(responses.count(url("/moved")) == 1);
  CHECK(responses.at(url("/moved")).at("status") == 301);
  CHECK(responses.at(url("/target")).at("status") == 200);
  CHECK(responses.at(url("/robots.txt")).at("status") == 404);
  REQUIRE(revisits.count(url("/missing")) == 1);
  CHECK(revisits.at(url("/missing")).at("status") == 404);
  CHECK(revisits.at(url("/missing")).at("refers_to_uri") == url("/robots.txt"));
  // The page over max_body_bytes: cut, and marked.
  CHECK(responses.at(url("/big")).at("truncated") == "length");
  CHECK(responses.at(url("/big")).at("payload_bytes") == 2048);
  CHECK(count(db, "SELECT truncated FROM pages WHERE url = '" + url("/big") + "'") == 1);
  // The gzip page: stored decoded, its wire encoding kept aside.
  CHECK(responses.at(url("/gz")).at("payload_bytes") == gz_page.size());
  // The test web may add its own br on top ("gzip, br"): curl undoes both.
  CHECK(responses.at(url("/gz")).at("orig_content_encoding").get<std::string>().rfind("gzip", 0) == 0);
  CHECK(responses.at(url("/gz")).at("truncated").is_null());
  CHECK(responses.at(url("/gz")).at("content_encoding").is_null());
  CHECK(responses.at(url("/gz")).at("ip") == "127.0.0.1");
  // The second page with the same body is a revisit of the first.
  REQUIRE(revisits.count(url("/same-2")) == 1);
  CHECK(revisits.at(url("/same-2")).at("refers_to_uri") == url("/same-1"));
  CHECK(revisits.at(url("/same-2")).at("profile") ==
        "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
  // The warcinfo names the crawl's policy and agent, and no host name.
  const std::string info = r.at("warcinfo").at(0).at("fields");
  CHECK(info.find("robots: classic\r\n") != std::string::npos);
  CHECK(info.find("http-header-user-agent: " + c.user_agent + "\r\n") != std::string::npos);
  CHECK(info.find("hostname") == std::string::npos);
}

TEST_CASE("warc: a crawl killed with SIGKILL and resumed leaves files warcio reads whole",
          "[.][warc][integration][kill]") {
  ScratchDir dir;
  LoopbackWeb web;
  std::vector<std::string> hosts;
  std::mt19937 rng{7};
  // Bodies that do not compress, so the files fill and rotate.
  const auto noise = [&](std::size_t n) {
    std::string out(n, ' ');
    for (auto& c : out)
      c = static_cast<char>('a' + rng() % 26);
    return out;
  };
  for (int h = 1; h <= 4; ++h) {
    hosts.push_back(web.add_host("127.0.0." + std::to_string(h)));
    std::vector<std::string> links;
    for (int i = 0; i < 30; ++i)
      links.push_back("/p/" + std::to_string(i));
    web.route(hosts.back(), "/", testing::html(page("Root", links)));
    for (int i = 0; i < 30; ++i)
      web.route(hosts.back(), "/p/" + std::to_string(i),
                testing::html(page("P" + std::to_string(i), {"/"}) + noise(static_cast<std::size_t>(i) * 500)));
  }
  std::vector<std::string> flags = {"crawl", "--db", dir.path("crawl.db"), "--metrics", dir.path("metrics.log"),
                                    "--processors", "html_links,warc", "--warc-dir", dir.path("warc"),
                                    "--warc-max-bytes", "64KiB", "--politeness-delay-ms", "20",
                                    "--politeness-delay-factor-percent", "0", "--progress-interval-ms", "100000"};
  for (const auto& host : hosts) {
    flags.insert(flags.end(), {"--seed", LoopbackWeb::url(host, "/"), "--allowed-domains", ip_of(host)});
  }
  {
    ChildProcess run(ACTORCRAWL_BINARY, flags, dir.path("run1.log"));
    // Killed once some records are on disk and the crawl is far from done.
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline && web.requests().size() < 40)
      std::this_thread::sleep_for(2ms);
    run.signal(SIGKILL);
    REQUIRE(run.wait(10s) == 128 + SIGKILL);
  }
  auto files = [&] {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir.path("warc")))
      out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  };
  REQUIRE_FALSE(files().empty());
  // What a kill in the middle of a write leaves: half a gzip member.
  const std::string last = files().back();
  // A file has its name only once its warcinfo is whole, however early the
  // kill came.
  REQUIRE(fs::file_size(last) > 0);
  // SIGKILL can also cut a write(2) short between two pages: then the
  // repair cuts that record as well as the half member appended here.
  bool whole_when_killed = true;
  try {
    testing::gzip_members(read_bytes(last));
  } catch (const std::runtime_error&) {
    whole_when_killed = false;
  }
  const std::string member = gzip(std::string(5000, 'w'));
  std::ofstream(last, std::ios::binary | std::ios::app) << member.substr(0, member.size() / 2);
  const auto torn_size = fs::file_size(last);
  {
    ChildProcess run(ACTORCRAWL_BINARY, flags, dir.path("run2.log"));
    REQUIRE(run.wait(60s) == 0);
    INFO(run.output());
    CHECK(run.output().find("warc: cut a torn record") != std::string::npos);
  }
  if (whole_when_killed)
    CHECK(fs::file_size(last) == torn_size - member.size() / 2);
  else
    CHECK(fs::file_size(last) < torn_size - member.size() / 2);
  CHECK(files().size() >= 3);  // 64 KiB files: rotated
  for (const auto& f : files())  // a file the kill left unfinished is gone
    CHECK(fs::path(f).filename().string().front() != '.');

  const Reading reading = read_warcs(dir.path("warc"));
  INFO(reading.report.dump(1));
  CHECK(reading.report.at("errors") == json::array());
  CHECK(reading.exit_code == 0);
  const auto archived = archived_uris(reading.report);
  check_every_page_archived(dir.path("crawl.db"), archived, 4 * 31);
}

TEST_CASE("warc: a tail torn in the last request or its response is cut back to the last whole pair",
          "[.][warc][integration]") {
  ScratchDir dir;
  LoopbackWeb web;
  const std::string host = web.add_host("127.0.0.1");
  web.route(host, "/", testing::html(page("Root", {"/a", "/b"})));
  web.route(host, "/a", testing::html(page("A", {"/"})));
  web.route(host, "/b", testing::html(page("B", {"/"}) + std::string(3000, 'b')));
  CrawlConfig c = fast_config(dir, LoopbackWeb::url(host, "/"));
  c.processors = {"html_links", "warc"};
  c.warc_dir = dir.path("warc");
  c.allowed_domains = {"127.0.0.1"};
  crawl(c);
  const auto files = WarcWriter::files_in(c.warc_dir, c.warc_prefix);
  REQUIRE(files.size() == 1);
  const std::string name = fs::path(files[0]).filename().string();
  const std::string whole = read_bytes(files[0]);
  std::vector<std::size_t> ends;
  const auto members = gzip_members(whole, &ends);
  const std::size_t n = members.size();
  REQUIRE(n >= 5);  // the warcinfo, then robots.txt's pair and the pages'
  REQUIRE(parse_record(members[n - 2]).field("WARC-Type") == "request");
  REQUIRE(parse_record(members[n - 1]).field("WARC-Type") == "response");

  // What a write torn by a crash leaves, in a directory of its own; the
  // next run on it (the same crawl, resumed: nothing left to fetch) repairs
  // it before it archives anything.
  struct Torn {
    const char* where;
    std::size_t size;
  };
  const Torn cuts[] = {{"inside the last response", ends[n - 2] + (ends[n - 1] - ends[n - 2]) / 2},
                       {"inside the last request", ends[n - 3] + (ends[n - 2] - ends[n - 3]) / 2}};
  for (const Torn& cut : cuts) {
    INFO("torn " << cut.where);
    CrawlConfig resumed = c;
    resumed.warc_dir = dir.path(std::string{"warc-"} + std::to_string(cut.size));
    fs::create_directories(resumed.warc_dir);
    const std::string torn = resumed.warc_dir + "/" + name;
    std::ofstream(torn, std::ios::binary) << whole.substr(0, cut.size);
    crawl(resumed);
    CHECK(fs::file_size(torn) == ends[n - 3]);
    const Reading reading = read_warcs(resumed.warc_dir);
    INFO(reading.report.dump(1));
    CHECK(reading.report.at("orphan_requests") == json::array());
    CHECK(reading.report.at("errors") == json::array());
    CHECK(reading.exit_code == 0);
  }
}

TEST_CASE("warc: a worker on another process archives what it fetches, in files named by its node",
          "[.][warc][integration][cluster]") {
  ScratchDir dir;
  LoopbackWeb web;
  const std::string host = web.add_host("127.0.0.1");
  std::vector<std::string> links;
  for (int i = 0; i < 10; ++i) {
    links.push_back("/p/" + std::to_string(i));
    web.route(host, links.back(), testing::html(page("P" + std::to_string(i), {"/"})));
  }
  web.route(host, "/", testing::html(page("Root", links)));
  // The coordinator fetches nothing itself (--workers 0): every response
  // comes from the worker process, which runs the coordinator's `warc`
  // processor itself (the bodies never cross) and writes into its own
  // warc_dir, here the same directory, its files named by its node.
  ChildProcess coordinator(ACTORCRAWL_BINARY,
                           {"coordinator", "--listen", "127.0.0.1:0", "--workers", "0", "--seed", LoopbackWeb::url(host, "/"),
                            "--allowed-domains", "127.0.0.1", "--db", dir.path("crawl.db"), "--metrics",
                            dir.path("metrics.log"), "--politeness-delay-ms", "0", "--processors", "html_links,warc",
                            "--warc-dir", dir.path("warc"), "--progress-interval-ms", "100000"},
                           dir.path("coordinator.log"));
  REQUIRE(coordinator.wait_for_output("listening on", 20s));
  const int port = coordinator_port(coordinator.output());
  REQUIRE(port > 0);
  ChildProcess worker(ACTORCRAWL_BINARY,
                      {"worker", "--connect", "127.0.0.1:" + std::to_string(port), "--workers", "1", "--node-id",
                       "node-b", "--warc-dir", dir.path("warc")},
                      dir.path("worker.log"));
  const auto code = coordinator.wait(60s);
  INFO(coordinator.output());
  REQUIRE(code == std::optional<int>{0});
  CHECK(worker.wait(10s) == std::optional<int>{0});
  bool node_files = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path("warc")))
    node_files = node_files || entry.path().filename().string().rfind("actorcrawl-node-b", 0) == 0;
  CHECK(node_files);

  const Reading reading = read_warcs(dir.path("warc"));
  INFO(reading.report.dump(1));
  CHECK(reading.report.at("errors") == json::array());
  CHECK(reading.exit_code == 0);
  const auto archived = archived_uris(reading.report);
  check_every_page_archived(dir.path("crawl.db"), archived, 11);
  CHECK(archived.count(LoopbackWeb::url(host, "/robots.txt")) == 1);
}

TEST_CASE("warc: a recrawl archives 304s as server-not-modified and unchanged bodies as identical-payload revisits",
          "[.][warc][integration][recrawl]") {
  ScratchDir dir;
  ACTORCRAWL_LOCAL_NGINX(server, dir.path("nginx"));
  const std::int64_t t1 = 1600000000;
  const std::string home = "<html><title>Home</title><a href=\"same.html\">a</a> <a href=\"touched.html\">b</a> "
                           "<a href=\"edited.html\">c</a></html>";
  write_static_file(server.root() / "index.html", home, t1);
  write_static_file(server.root() / "same.html", "<html><title>Same</title></html>", t1);
  write_static_file(server.root() / "touched.html", "<html><title>Touched</title></html>", t1);
  write_static_file(server.root() / "edited.html", "<html><title>Edited</title></html>", t1);
  CrawlConfig c = fast_config(dir, server.url("/index.html"));
  c.processors = {"html_links", "warc"};
  c.warc_dir = dir.path("warc");
  c.revisit_after_ms = 3600 * 1000;
  crawl(c);
  {
    SQLite::Database db(c.db_path, SQLite::OPEN_READWRITE);
    db.exec("UPDATE frontier SET settled_at = settled_at - 7200000 WHERE state = 1");
  }
  // Touched: a new time, the same body (nginx's ETag changes, so 200).
  write_static_file(server.root() / "touched.html", "<html><title>Touched</title></html>", t1 + 60);
  write_static_file(server.root() / "edited.html", "<html><title>Edited, twice as long</title></html>", t1 + 60);
  crawl(c);

  const Reading reading = read_warcs(c.warc_dir);
  INFO(reading.report.dump(1));
  CHECK(reading.report.at("errors") == json::array());
  CHECK(reading.exit_code == 0);
  std::map<std::string, std::string> second_run_profiles;
  for (const auto& r : reading.report.at("revisits"))
    second_run_profiles[r.at("uri").get<std::string>()] = r.at("profile").get<std::string>();
  const std::string not_modified = "http://netpreserve.org/warc/1.1/revisit/server-not-modified";
  CHECK(second_run_profiles[server.url("/index.html")] == not_modified);
  CHECK(second_run_profiles[server.url("/same.html")] == not_modified);
  CHECK(second_run_profiles[server.url("/touched.html")] ==
        "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest");
  CHECK(second_run_profiles.count(server.url("/edited.html")) == 0);
  int edited_responses = 0;
  for (const auto& r : reading.report.at("responses"))
    edited_responses += r.at("uri") == server.url("/edited.html") ? 1 : 0;
  CHECK(edited_responses == 2);
  CHECK(count(c.db_path, "SELECT COUNT(*) FROM page_changes WHERE change = 'changed'") == 1);
  CHECK(count(c.db_path, "SELECT COUNT(*) FROM page_changes WHERE change = 'unchanged'") == 3);
}
