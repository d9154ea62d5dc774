// The message trace of real crawls: one URL's journey through the actors,
// in one process and across a coordinator and a worker process.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>

#include "child_process.h"
#include "core/trace/trace_query.h"
#include "tests/unit/trace/mermaid_sequence.h"
#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;
using namespace std::chrono_literals;

namespace {

// "parse_lane/17" -> "parse_lane"
std::string kind_of(const std::string& role) { return role.substr(0, role.find('/')); }

std::string step(const TraceRecord& r) { return kind_of(r.from) + " -> " + kind_of(r.to) + " " + r.type; }

std::vector<TraceRecord> journey(const std::vector<std::string>& files, const std::string& url) {
  TraceFilter filter;
  filter.url = url;
  std::vector<TraceRecord> out;
  for (auto& r : read_trace_files(files))
    if (filter.matches(r))
      out.push_back(std::move(r));
  return out;
}

// Index of the first record at or after `from` that is `wanted`; fails the
// test when there is none, so the order of a chain can be checked link by link.
std::size_t find_step(const std::vector<TraceRecord>& records, const std::string& wanted, std::size_t from) {
  for (std::size_t i = from; i < records.size(); ++i)
    if (step(records[i]) == wanted)
      return i;
  FAIL("no '" << wanted << "' at or after record " << from);
  return records.size();
}

std::string run_trace_command(const std::string& args) {
  const std::string cmd = std::string{ACTORCRAWL_BINARY} + " trace " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    out.append(buf.data(), n);
  const int status = pclose(p);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return out;
}

// The messages that carry one URL discovered on another page and crawled,
// as (sender kind -> receiver kind, type); each exactly once.
const std::vector<std::string> kJourney = {
  "parse_lane -> frontier pages_fetched",        // found on the page before it
  "frontier -> storage frontier_delta",          // queued: its frontier row
  "frontier -> host_selector crawl_batch",       // leased
  "host_selector -> fetch_worker fetch_jobs",     // its host's turn
  "fetch_worker -> processor fetch_result",      // fetched
  "processor -> parse_lane fetch_result",        // to a parser
  "parse_lane -> frontier pages_fetched",        // its row, and links
  "frontier -> storage store_pages",             // its page row, passed on
  "frontier -> storage frontier_delta",          // settled: done
  "fetch_worker -> host_selector fetches_done",  // the host's clock restarts
};

void check_journey(const std::vector<TraceRecord>& records) {
  std::vector<std::string> steps;
  for (const auto& r : records)
    steps.push_back(step(r));
  auto sorted_steps = steps;
  auto expected = kJourney;
  std::sort(sorted_steps.begin(), sorted_steps.end());
  std::sort(expected.begin(), expected.end());
  INFO(render_lines(records));
  CHECK(sorted_steps == expected);
  // Cause before effect, along the chain.
  std::size_t i = find_step(records, "parse_lane -> frontier pages_fetched", 0);
  i = find_step(records, "frontier -> host_selector crawl_batch", i + 1);
  i = find_step(records, "host_selector -> fetch_worker fetch_jobs", i + 1);
  i = find_step(records, "fetch_worker -> processor fetch_result", i + 1);
  i = find_step(records, "processor -> parse_lane fetch_result", i + 1);
  const std::size_t parsed = i;
  i = find_step(records, "parse_lane -> frontier pages_fetched", parsed + 1);
  // The row reaches Storage before the delta that says its page is done.
  i = find_step(records, "frontier -> storage store_pages", i + 1);
  find_step(records, "frontier -> storage frontier_delta", i + 1);
}

}  // namespace

TEST_CASE("the trace of the 3-host loop shows each URL's journey through the actors", "[integration][trace]") {
  ScratchDir dir;
  LoopbackWeb web;
  const auto [a, b, c] = three_host_loop(web);
  auto config = fast_config(dir, LoopbackWeb::url(a, "/"));
  config.allowed_domains = {"127.0.0.1", "127.0.0.2", "127.0.0.3"};
  config.trace_path = dir.path("trace.jsonl");
  config.node_id = "solo";
  crawl(config);

  const auto records = read_trace_files({config.trace_path});
  REQUIRE(!records.empty());
  for (const auto& r : records)
    CHECK(r.node == "solo");
  // The mailbox wait is known for every message to an event-based actor.
  for (const auto& r : records)
    if (kind_of(r.to) != "fetch_worker")
      CHECK(r.mailbox_us.has_value());
  // Requests and their replies pair up: the storage's answer to begin_run.
  const auto begin = std::find_if(records.begin(), records.end(), [](auto& r) { return r.type == "begin_run"; });
  REQUIRE(begin != records.end());
  REQUIRE(begin->request_id.has_value());

  check_journey(journey({config.trace_path}, LoopbackWeb::url(b, "/")));
  check_journey(journey({config.trace_path}, LoopbackWeb::url(c, "/")));

  const auto diagram = run_trace_command(config.trace_path + " --url " + LoopbackWeb::url(b, "/") + " --mermaid");
  INFO(diagram);
  CHECK(testing::is_valid_mermaid_sequence(diagram));
  CHECK(diagram.find("fetch_jobs") != std::string::npos);
  CHECK(diagram.find("store_pages") != std::string::npos);
  const auto summary = run_trace_command(config.trace_path + " --summary");
  CHECK(summary.find("frontier") != std::string::npos);
  CHECK(summary.find("pages_fetched") != std::string::npos);
}

TEST_CASE("traces of a coordinator and a worker merge into one journey across the two nodes",
          "[integration][trace][cluster]") {
  ScratchDir dir;
  LoopbackWeb web;
  auto a = web.add_host("127.0.0.1");
  auto b = web.add_host("127.0.0.2");
  web.route(a, "/", html(page("A", {LoopbackWeb::url(b, "/")})));
  web.route(b, "/", html(page("B", {LoopbackWeb::url(a, "/")})));
  ChildProcess coordinator(ACTORCRAWL_BINARY,
                           {"coordinator", "--listen", "127.0.0.1:0", "--seed", LoopbackWeb::url(a, "/"),
                            "--allowed-domains", "127.0.0.1", "--allowed-domains", "127.0.0.2", "--db",
                            dir.path("c.db"), "--metrics", dir.path("c.metrics"), "--politeness-delay-ms", "0",
                            "--trace", dir.path("coordinator.jsonl"), "--node-id", "coord"},
                           dir.path("coordinator.log"));
  REQUIRE(coordinator.wait_for_output("listening on", 20s));
  const int port = coordinator_port(coordinator.output());
  ChildProcess worker(ACTORCRAWL_BINARY,
                      {"worker", "--connect", "127.0.0.1:" + std::to_string(port), "--workers", "1", "--trace",
                       dir.path("worker.jsonl"), "--node-id", "w1"},
                      dir.path("worker.log"));
  REQUIRE(coordinator.wait(60s) == std::optional<int>{0});
  REQUIRE(worker.wait(10s) == std::optional<int>{0});

  const std::vector<std::string> files = {dir.path("coordinator.jsonl"), dir.path("worker.jsonl")};
  const auto records = journey(files, LoopbackWeb::url(b, "/"));
  check_journey(records);
  // The fetch and the page's processing happened on the worker's node,
  // everything else on the coordinator's; each side names the other's
  // actors (the node's parser lanes too: it names them when it joins).
  for (const auto& r : records) {
    INFO(r.from << " -> " << r.to << " " << r.type);
    if (r.type == "fetch_jobs") {
      CHECK(r.node == "w1");
      CHECK(r.from == "host_selector");
      CHECK(r.from_node == "coord");
    } else if (r.type == "fetch_result") {
      CHECK(r.node == "w1");
    } else {
      CHECK(r.node == "coord");
    }
    // Seen from the coordinator, the node's actors carry its name.
    if (kind_of(r.from) == "fetch_worker")
      CHECK(r.from == "fetch_worker/worker-1");
    if ((kind_of(r.from) == "fetch_worker" || kind_of(r.from) == "parse_lane") && r.node == "coord")
      CHECK(r.from_node == "w1");
  }
  const auto diagram = run_trace_command(files[0] + " " + files[1] + " --url " + LoopbackWeb::url(b, "/") + " --mermaid");
  INFO(diagram);
  CHECK(testing::is_valid_mermaid_sequence(diagram));
  CHECK(diagram.find("@ w1") != std::string::npos);
  CHECK(diagram.find("@ coord") != std::string::npos);
}
