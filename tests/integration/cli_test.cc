// The actorcrawl binary as a user runs it: exit codes, error messages that
// name the problem, --help, the demo crawl, and Ctrl-C then resume.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/config/crawl_config.h"
#include "binary_run.h"
#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;

namespace {

std::string write_file(const ScratchDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.path(name)) << text;
  return dir.path(name);
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Starts `actorcrawl <args>` in the background, output discarded.
pid_t start(const std::string& args) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::string cmd = std::string{ACTORCRAWL_BINARY} + " " + args + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Sends `sig` once the web has served `pages` pages (or after 20 s), and
// returns the wait status.
int interrupt_after(pid_t pid, const LoopbackWeb& web, std::size_t pages, int sig) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
  while (page_requests(web) < pages && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds{5});
  kill(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// 40 pages, each linking to the next two: always more queued than fetched.
std::string serve_chain(LoopbackWeb& web) {
  auto h = web.add_host("127.0.0.1");
  for (int i = 0; i < 40; ++i)
    web.route(h, "/p" + std::to_string(i),
              html(page("P", {"/p" + std::to_string(i + 1), "/p" + std::to_string(i + 2)})));
  return h;
}

}  // namespace

TEST_CASE("--help lists every option with its default", "[cli]") {
  auto out = run("--help");
  CHECK(out.exit_code == 0);
  for (const auto& key : config_keys()) {
    INFO(key.name);
    CHECK(contains(out.output, std::string{"["} + key.name + ", default "));
  }
  CHECK(contains(out.output, "--max-pages"));
  CHECK(contains(out.output, "--politeness-delay"));
  CHECK(contains(out.output, "--workers"));
}

TEST_CASE("--help names every export format, and shows each default as what it is", "[cli]") {
  const auto out = run("--help");
  CHECK(out.exit_code == 0);
  CHECK(contains(out.output, "--format jsonl|csv|graphml|gexf|dot|items|items-csv|changes\n"));
  // Durations and sizes in the units a flag takes; an empty seed list is
  // the demo web; a default that depends on the profile says so.
  CHECK(contains(out.output, "[seed_url, default none (the bundled demo web)]"));
  CHECK(contains(out.output, "[robots_cache_ttl, default 24h]"));
  CHECK(contains(out.output, "[host_backoff, default 5m]"));
  CHECK(contains(out.output, "[revisit_max, default 30d]"));
  CHECK(contains(out.output, "[politeness_delay_ms, default 1s]"));
  CHECK(contains(out.output, "[max_body_bytes, default 1MiB]"));
  CHECK(contains(out.output, "[warc_max_bytes, default 1GiB]"));
  CHECK(contains(out.output, "[sitemaps, default true in the site profile, false in the domains profile]"));
  CHECK(contains(out.output, "[node_id, default HOST:PID]"));
  CHECK_FALSE(contains(out.output, "default []]"));
  CHECK_FALSE(contains(out.output, "000ms]"));
}

TEST_CASE("a bad config file is refused before anything starts, naming key and line", "[cli]") {
  ScratchDir dir;
  auto unknown = write_file(dir, "unknown.yaml", "seed_url: http://127.0.0.1:1/\nmax_dept: 3\n");
  auto out = run("crawl --config " + unknown + " --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "line 2: unknown key 'max_dept' (did you mean 'max_depth'?)"));

  auto negative = write_file(dir, "neg.yaml", "seed_url: http://127.0.0.1:1/\n\nmax_depth: -1\n");
  out = run("crawl --config " + negative + " --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "line 3: key 'max_depth': must be between 0 and 1000, got -1"));

  auto zero = write_file(dir, "zero.yaml", "seed_url: http://127.0.0.1:1/\nconcurrent_workers: 257\n");
  out = run("crawl --config " + zero + " --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "line 2: key 'concurrent_workers': must be between 0 and 256, got 257"));

  // 0 is a coordinator's number; a single-process crawl would fetch nothing.
  out = run("crawl --seed http://127.0.0.1:1/ --workers 0 --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "concurrent_workers is 0: nothing would fetch"));

  auto wrong_type = write_file(dir, "type.yaml", "seed_url: http://127.0.0.1:1/\nmax_pages: lots\n");
  out = run("crawl --config " + wrong_type + " --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "line 2: key 'max_pages': expected an integer, got 'lots'"));

  auto syntax = write_file(dir, "syntax.yaml", "seed_url: [unclosed\n");
  out = run("crawl --config " + syntax + " --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "invalid YAML"));

  out = run("crawl --seed 'ftp://example.com/' --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "seed 'ftp://example.com/' is not a crawlable URL (unsupported_scheme)"));

  out = run("crawl --seed http://127.0.0.1:1/ --max-pages 0");
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "option '--max-pages': must be between 1"));

  out = run("crawl --seed http://127.0.0.1:1/ --no-such-flag 3");
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "unknown option '--no-such-flag'"));

  // A directory is not an empty config with every default.
  out = run("crawl --config " + dir.path("") + " --seed http://127.0.0.1:1/ --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "is a directory, not a YAML file"));

  // Seed 004's config.json without `profile: domains`: its keys would be
  // ignored by a site crawl, so the crawl does not start.
  auto seed004 = write_file(dir, "config.json",
                            R"({"seed_url": "http://127.0.0.1:1/", "max_crawls_per_node": 5, "max_subdomains_per_root": 5,)"
                            R"( "max_outbound_links": 20})");
  out = run("crawl --config " + seed004 + " --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "line 1: key 'max_crawls_per_node' is used only by the domains profile, and this "
                             "crawl's profile is site (set profile: domains, or remove the key)"));
  out = run("crawl --profile domains --scope any --seed http://127.0.0.1:1/ --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "option '--scope': key 'scope' is used only by the site profile"));

  // A comma list where one entry is read: refused, not a crawl that fails
  // every fetch.
  out = run("crawl --seed http://127.0.0.1:1/ --resolve a,b --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "resolve: 'a,b' has no HOST:PORT: before the address"));
  out = run("crawl --seed http://127.0.0.1:1/ --allowed-domains 127.0.0.2 --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "seed 'http://127.0.0.1:1/' is outside the crawl's scope"));
  out = run("crawl --seed http://127.0.0.1:1/ --max-pages 18446744073709551615 --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "got 18446744073709551615"));

  // Extraction rules that cannot run: exit 2 naming the rule and field.
  auto rules = write_file(dir, "rules.yaml",
                          "seed_url: http://127.0.0.1:1/\nextract:\n  - name: product\n    fields:\n"
                          "      price: {xpath: '//span['}\n");
  out = run("crawl --config " + rules + " --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "'product'"));
  CHECK(contains(out.output, "'price'"));

  // Nothing was created for any of them.
  CHECK_FALSE(std::filesystem::exists(dir.path("x.db")));
}

TEST_CASE("a crawl whose every seed is refused exits 1 saying why", "[cli]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Home", {"/a"})));
  web.route(h, "/private/", html(page("Private", {"/a"})));
  demoweb::Response robots;
  robots.content_type = "text/plain";
  robots.body = "User-agent: *\nDisallow: /private/\n";
  web.route(h, "/robots.txt", robots);
  auto out = run("crawl --quiet --block-private-networks --seed " + LoopbackWeb::url(h, "/") + " --db " + dir.path("a.db"));
  CHECK(out.exit_code == 1);
  CHECK(contains(out.output, LoopbackWeb::url(h, "/") + ": its address is private, loopback or link-local (private_address)"));
  CHECK(contains(out.output, "is on a private, loopback or link-local address"));
  out = run("crawl --quiet --seed " + LoopbackWeb::url(h, "/private/") + " --db " + dir.path("b.db"));
  CHECK(out.exit_code == 1);
  CHECK(contains(out.output, "nothing was fetched: " + LoopbackWeb::url(h, "/private/") +
                               ": robots.txt disallows it"));
  // One seed refused, one fetched: the crawl did something.
  out = run("crawl --quiet --seed " + LoopbackWeb::url(h, "/private/") + " --seed " + LoopbackWeb::url(h, "/") + " --db " +
            dir.path("c.db"));
  CHECK(out.exit_code == 0);
  // A seed crawled by an earlier run is no refusal: the second run has
  // nothing to do, and says so with exit 0.
  out = run("crawl --quiet --seed " + LoopbackWeb::url(h, "/") + " --db " + dir.path("c.db"));
  CHECK(out.exit_code == 0);
  CHECK(page_requests(web) == 2);
}

TEST_CASE("an unwritable database is a clear error", "[cli]") {
  ScratchDir dir;
  auto out = run("crawl --quiet --seed http://127.0.0.1:1/ --db " + dir.path("missing-dir/crawl.db"));
  CHECK(out.exit_code == 1);
  CHECK(contains(out.output, "database error: cannot open database"));
  write_file(dir, "garbage.db", std::string(4096, 'g'));
  out = run("crawl --quiet --seed http://127.0.0.1:1/ --db " + dir.path("garbage.db"));
  CHECK(out.exit_code == 1);
  CHECK(contains(out.output, "database error"));
}

TEST_CASE("with no seed, the bundled demo web is crawled", "[cli][demo]") {
  ScratchDir dir;
  auto out = run("crawl --quiet --politeness-delay 50ms --db " + dir.path("demo.db") + " --metrics " +
                 dir.path("metrics.log"));
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  const auto db = dir.path("demo.db");
  // Three hosts crawled; the off-site link is a node but never fetched.
  CHECK(count(db, "SELECT COUNT(*) FROM nodes WHERE crawl_count > 0") == 3);
  CHECK(count(db, "SELECT COUNT(*) FROM nodes WHERE domain_name = 'example.invalid'") == 1);
  CHECK(count(db, "SELECT COUNT(*) FROM pages WHERE status_code = 404") == 1);
  CHECK(count(db, "SELECT COUNT(*) FROM pages WHERE content_type = 'application/pdf'") == 1);
  CHECK(count(db, "SELECT COUNT(*) FROM pages WHERE redirect_chain IS NOT NULL") == 1);
  std::ifstream in(dir.path("metrics.log"));
  auto metrics = nlohmann::json::parse(in);
  CHECK(metrics["termination_reason"] == "queue_empty");
  for (const char* field : {"start_time", "end_time", "nodes_discovered", "nodes_crawled", "edges_recorded",
                            "pages_fetched", "pages_failed", "avg_fetch_time_ms"})
    CHECK(metrics.contains(field));
  CHECK(metrics["pages_fetched"].get<int>() == count(db, "SELECT COUNT(*) FROM pages WHERE error IS NULL"));
  CHECK(metrics["nodes_crawled"] == 3);
}

TEST_CASE("SIGINT stops gracefully with exit 0, and the same command resumes", "[cli][resume]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = serve_chain(web);
  const std::string args = "crawl --quiet --seed " + LoopbackWeb::url(h, "/p0") + " --politeness-delay 40ms --max-depth 100 --db " +
                           dir.path("c.db") + " --metrics " + dir.path("metrics.log");
  int status = interrupt_after(start(args), web, 10, SIGINT);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::ifstream in(dir.path("metrics.log"));
  auto metrics = nlohmann::json::parse(in);
  CHECK(metrics["termination_reason"] == "signal");
  const auto first = page_requests(web);
  CHECK(first < 40);

  auto out = run(args);
  CHECK(out.exit_code == 0);
  auto seen = targets_seen(web, h);
  CHECK(seen.size() == 42);  // p0..p39, and p40, p41 which answer 404
  for (const auto& [target, times] : seen) {
    INFO(target);
    CHECK(times == 1);
  }
}

TEST_CASE("after kill -9 the same command completes the crawl and loses no URL", "[cli][resume]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = serve_chain(web);
  const std::string args = "crawl --quiet --seed " + LoopbackWeb::url(h, "/p0") + " --politeness-delay 30ms --max-depth 100 --db " +
                           dir.path("c.db") + " --metrics " + dir.path("metrics.log");
  int status = interrupt_after(start(args), web, 15, SIGKILL);
  CHECK(WIFSIGNALED(status));

  auto out = run(args);
  INFO(out.output);
  CHECK(out.exit_code == 0);
  CHECK(count(dir.path("c.db"), "SELECT COUNT(*) FROM pages") == 42);
  CHECK(count(dir.path("c.db"), "SELECT COUNT(*) FROM frontier WHERE state = 0") == 0);
  // Settled rows whose commit the kill cut off are fetched again (that is
  // the reason); nothing is fetched more than that once more.
  auto seen = targets_seen(web, h);
  CHECK(seen.size() == 42);
  for (const auto& [target, times] : seen) {
    INFO(target);
    CHECK(times <= 2);
  }
}

TEST_CASE("bytes that are not UTF-8 in a seed or a config file exit 2 with a message, never abort", "[cli]") {
  ScratchDir dir;
  // The shell is sh: printf writes the raw byte.
  auto out = run("crawl --seed \"$(printf 'http://127.0.0.1:1/\\377')\" --db " + dir.path("x.db") + " --metrics " +
                 dir.path("m.log"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "key 'seeds': 'http://127.0.0.1:1/\\xFF' is not valid UTF-8 (byte 0xFF at offset 19)"));
  CHECK_FALSE(contains(out.output, "terminate called"));

  auto file = write_file(dir, "bad.yaml", "seed_url: http://127.0.0.1:1/\nuser_agent: \"bot\xc3\"\n");
  out = run("crawl --config " + file + " --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "key 'user_agent'"));

  auto dup = write_file(dir, "dup.yaml", "seed_url: http://127.0.0.1:1/\nmax_pages: 3\nmax_pages: 4\n");
  out = run("crawl --config " + dup + " --db " + dir.path("x.db"));
  CHECK(out.exit_code == 2);
  CHECK(contains(out.output, "key 'max_pages' is given twice (first on line 2)"));
}

TEST_CASE("redrive queues dead letters again in one step, and the next run fetches them", "[cli][redrive]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = web.add_host("127.0.0.1");
  web.route(h, "/", html(page("Root", {"/moved", "/ok"})));
  web.route(h, "/ok", html(page("OK", {})));
  // A redirect to itself (a final failure: a dead letter) until the site is
  // fixed, between the runs.
  web.route(h, "/moved", std::function<demoweb::Response(int)>([](int hit) {
              return hit == 1 ? redirect(302, "/moved") : html(page("Moved", {}));
            }));
  auto config = fast_config(dir, LoopbackWeb::url(h, "/"));
  crawl(config);
  const std::string moved = LoopbackWeb::url(h, "/moved");
  REQUIRE(column(config.db_path, "SELECT reason FROM dead_letters") == std::vector<std::string>{"redirect_loop"});
  REQUIRE(column(config.db_path, "SELECT state FROM frontier WHERE url = '" + moved + "'") ==
          std::vector<std::string>{"2"});

  // Usage errors and a missing database change nothing.
  CHECK(run("redrive").exit_code == 2);
  CHECK(run("redrive --db " + config.db_path + " --older-than soon").exit_code == 2);
  const auto missing = run("redrive --db " + dir.path("none.db"));
  CHECK(missing.exit_code == 1);
  CHECK(contains(missing.output, "no database at"));
  // Another reason, or letters younger than asked: nothing taken.
  auto other = run("redrive --db " + config.db_path + " --reason http_500");
  CHECK(other.exit_code == 0);
  CHECK(contains(other.output, "re-drove 0 dead letters"));
  CHECK(run("redrive --db " + config.db_path + " --older-than 1d").exit_code == 0);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM dead_letters WHERE redriven = 0") == 1);

  auto r = run("redrive --db " + config.db_path + " --reason redirect_loop --json");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  const auto report = nlohmann::json::parse(r.output);
  CHECK(report.at("letters") == 1);
  CHECK(report.at("requeued") == 1);
  CHECK(report.at("by_reason").at("redirect_loop") == 1);
  CHECK(column(config.db_path, "SELECT state FROM frontier WHERE url = '" + moved + "'") ==
        std::vector<std::string>{"0"});
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM dead_letters WHERE redriven = 1") == 1);

  crawl(config);
  CHECK(web.count(h, "/moved") == 2);
  CHECK(web.count(h, "/ok") == 1);
  CHECK(column(config.db_path, "SELECT state FROM frontier WHERE url = '" + moved + "'") ==
        std::vector<std::string>{"1"});
  CHECK(column(config.db_path, "SELECT title FROM pages WHERE url = '" + moved + "'") ==
        std::vector<std::string>{"Moved"});
  // Taken once.
  CHECK(contains(run("redrive --db " + config.db_path).output, "re-drove 0 dead letters"));
}

TEST_CASE("a second crawl of a database in use exits 1 naming the first, and changes nothing", "[cli][lock]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto h = serve_chain(web);
  const std::string db = dir.path("c.db");
  const std::string trace = dir.path("trace.jsonl");
  const std::string args = "crawl --quiet --seed " + LoopbackWeb::url(h, "/p0") +
                           " --politeness-delay 80ms --max-depth 100 --db " + db + " --trace " + trace;
  const pid_t first = start(args + " --metrics " + dir.path("first.log"));
  // Until the first has written part of its trace (it writes 64 KiB at a
  // time), so that a second opening the same trace file would show.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
  const auto trace_bytes = [&] {
    std::error_code ec;
    const auto size = std::filesystem::file_size(trace, ec);
    return ec ? 0 : size;
  };
  while ((page_requests(web) < 3 || trace_bytes() == 0) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds{5});
  REQUIRE(trace_bytes() > 0);
  REQUIRE(page_requests(web) < 40);  // the first is still crawling

  auto out = run(args + " --metrics " + dir.path("second.log"));
  INFO(out.output);
  CHECK(out.exit_code == 1);
  CHECK(contains(out.output, "actorcrawl: database error: database '" + db +
                                 "' is in use by another actorcrawl (pid " + std::to_string(first) + " on host "));
  CHECK(contains(out.output, ", actorcrawl crawl); one process writes a database at a time"));
  // Refused before it touched anything: no run of its own, no metrics.
  CHECK(count(db, "SELECT COUNT(*) FROM crawl_runs") == 1);
  CHECK_FALSE(std::filesystem::exists(dir.path("second.log")));

  // The first crawl never noticed: it completes, every page fetched once.
  int status = 0;
  REQUIRE(waitpid(first, &status, 0) == first);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  auto seen = targets_seen(web, h);
  CHECK(seen.size() == 42);  // p0..p39, and p40, p41 which answer 404
  for (const auto& [target, times] : seen) {
    INFO(target);
    CHECK(times == 1);
  }
  CHECK(column(db, "PRAGMA integrity_check") == std::vector<std::string>{"ok"});
  CHECK(count(db, "SELECT COUNT(*) FROM crawl_runs WHERE ended_at IS NOT NULL") == 1);
  // Nor was the first one's trace file (the same path) truncated under it:
  // every line is a whole record, no hole of NUL bytes at the start.
  std::ifstream in(trace, std::ios::binary);
  std::string line;
  std::size_t lines = 0;
  while (std::getline(in, line)) {
    INFO("trace line " << lines);
    REQUIRE(nlohmann::json::accept(line));
    ++lines;
  }
  CHECK(lines > 42);
  CHECK(count(db, "SELECT COUNT(*) FROM frontier WHERE state = 0") == 0);
  // The lock went with its holder.
  CHECK_FALSE(std::filesystem::exists(db + ".lock"));
  // And the database is free for the next run.
  out = run(args + " --metrics " + dir.path("third.log"));
  CHECK(out.exit_code == 0);
}

TEST_CASE("cli: parse fetches one page as a crawl would and prints what its rules and selectors take",
          "[integration][cli][parse]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto h = web.add_host("127.0.0.1");
  web.route(h, "/robots.txt", demoweb::Response{200, "text/plain", "User-agent: *\nDisallow: /private\n", {}, 0});
  web.route(h, "/shop",
            html("<html><head><title>Shop</title></head><body>"
                 "<div class=p><h2>Kettle</h2><b>19.99</b></div><div class=p><h2>Mug</h2><b>4.50</b></div>"
                 "<a href=/shop?page=2>next</a><a href='http://elsewhere.example/'>away</a></body></html>"));
  web.route(h, "/private", html(page("Private", {})));
  const std::string rules = write_file(dir, "rules.yaml",
                                       "politeness_delay_ms: 0\n"
                                       "extract:\n"
                                       "  - name: product\n"
                                       "    each: div.p\n"
                                       "    fields:\n"
                                       "      name: {css: 'h2::text'}\n"
                                       "      price: {css: 'b::text', type: float}\n");
  // Run from the scratch directory: whatever it wrote would be there.
  const Outcome parsed = run("parse " + LoopbackWeb::url(h, "/shop") + " --config " + rules + " --css 'h2::text'",
                             dir.path(""));
  INFO(parsed.output);
  REQUIRE(parsed.exit_code == 0);
  const auto page_json = nlohmann::json::parse(parsed.output.substr(parsed.output.find('{')));
  CHECK(page_json["status"] == 200);
  CHECK(page_json["title"] == "Shop");
  CHECK(page_json["items"] == nlohmann::json::parse(R"([{"kind": "product", "item": {"name": "Kettle", "price": 19.99}},
                                                        {"kind": "product", "item": {"name": "Mug", "price": 4.5}}])"));
  CHECK(page_json["selected"] == nlohmann::json::parse(R"({"css h2::text": ["Kettle", "Mug"]})"));
  REQUIRE(page_json["links"].size() == 2);
  CHECK(page_json["links"][0]["url"] == LoopbackWeb::url(h, "/shop?page=2"));
  CHECK(page_json["links"][0]["followed"] == true);
  CHECK(page_json["links"][1]["followed"] == false);  // another domain
  // Its robots.txt, then the page: nothing else, nothing written.
  CHECK(web.count(h, "/robots.txt") == 1);
  CHECK(web.count(h, "/shop") == 1);
  CHECK(web.requests().size() == 2);
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path("")))
    files.push_back(entry.path().filename().string());
  CHECK(files == std::vector<std::string>{"rules.yaml"});

  // A page robots.txt disallows is not requested.
  const Outcome refused = run("parse " + LoopbackWeb::url(h, "/private") + " --politeness-delay 0");
  CHECK(refused.exit_code == 1);
  CHECK(contains(refused.output, "robots.txt of " + h + " disallows /private"));
  CHECK(web.count(h, "/private") == 0);
  // A selector that does not compile is a usage error naming it.
  const Outcome bad = run("parse " + LoopbackWeb::url(h, "/shop") + " --css 'h2::bogus'");
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.output, "h2::bogus"));
}
