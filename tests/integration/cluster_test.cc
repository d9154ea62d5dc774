// Several processes, one crawl: a coordinator (`actorcrawl coordinator`) and
// worker processes (`actorcrawl worker`) on loopback, against a test web in
// this process. Workers die, stop and join late; the database must come out
// as a single-process crawl's would, with every page exactly once.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "runtime/worker_node.h"
#include "child_process.h"
#include "core/report/console_log.h"
#include "binary_run.h"
#include "crawl_fixture.h"

using namespace actorcrawl;
using namespace actorcrawl::testing;
using demoweb::LoopbackWeb;
using namespace std::chrono_literals;

namespace {

constexpr int kHosts = 4;
constexpr int kPagesPerHost = 24;  // plus each host's root

// A tree per host: the root links to its pages and to the next host's root;
// every page links back to its root and to the next page. Each URL has one
// BFS depth whatever order the fetches finish in, so two crawls of it can
// be compared row for row.
struct ClusterWeb {
  LoopbackWeb web;
  std::vector<std::string> hosts;

  // Hosts on `net` + first, first + 1, ...: 127.0.0.1-4 unless a test needs
  // addresses other network namespaces can reach.
  explicit ClusterWeb(int delay_ms, const std::string& net = "127.0.0.", int first = 1) {
    for (int h = 0; h < kHosts; ++h)
      hosts.push_back(web.add_host(net + std::to_string(first + h)));
    for (int h = 0; h < kHosts; ++h) {
      std::vector<std::string> links;
      for (int p = 0; p < kPagesPerHost; ++p)
        links.push_back("/page/" + std::to_string(p));
      if (h + 1 < kHosts)
        links.push_back(LoopbackWeb::url(hosts[h + 1], "/"));
      auto root = html(page("Root " + std::to_string(h), links));
      root.delay_ms = delay_ms;
      web.route(hosts[h], "/", root);
      for (int p = 0; p < kPagesPerHost; ++p) {
        auto r = html(page("Page " + std::to_string(h) + "." + std::to_string(p),
                           {"/", "/page/" + std::to_string((p + 1) % kPagesPerHost)}));
        r.delay_ms = delay_ms;
        web.route(hosts[h], "/page/" + std::to_string(p), r);
      }
    }
  }
  std::string seed() const { return LoopbackWeb::url(hosts[0], "/"); }
  static constexpr int pages() { return kHosts * (kPagesPerHost + 1); }
};

CrawlConfig cluster_config(const ScratchDir& dir, const ClusterWeb& web, const std::string& db) {
  auto c = fast_config(dir, web.seed());
  c.db_path = dir.path(db);
  c.metrics_path = dir.path(db + ".metrics");
  for (const auto& host : web.hosts)
    c.allowed_domains.push_back(ip_of(host));
  c.politeness_delay_ms = 20;
  c.politeness_delay_factor_percent = 0;
  return c;
}

std::vector<std::string> coordinator_args(const CrawlConfig& c, std::vector<std::string> extra = {},
                                          const std::string& listen = "127.0.0.1:0") {
  std::vector<std::string> args = {"coordinator", "--listen", listen, "--seed", c.seeds.front(),
                                   "--db", c.db_path, "--metrics", c.metrics_path,
                                   "--politeness-delay-ms", std::to_string(c.politeness_delay_ms),
                                   "--politeness-delay-factor-percent", "0", "--retry-delay-ms", "20",
                                   "--request-timeout-ms", "2000", "--progress-interval-ms", "100000"};
  for (const auto& d : c.allowed_domains) {
    args.push_back("--allowed-domains");
    args.push_back(d);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// A worker node named `node`: its FetchWorker is "worker-1@<node>".
std::vector<std::string> worker_args(int port, std::vector<std::string> extra = {}, const std::string& node = "",
                                     const std::string& coordinator_ip = "127.0.0.1") {
  std::vector<std::string> args = {"worker", "--connect", coordinator_ip + ":" + std::to_string(port), "--workers", "1",
                                   "--transfers-per-worker", "4"};
  if (!node.empty()) {
    args.push_back("--node-id");
    args.push_back(node);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

int start_and_read_port(ChildProcess& coordinator) {
  REQUIRE(coordinator.wait_for_output("listening on", 20s));
  const int port = coordinator_port(coordinator.output());
  REQUIRE(port > 0);
  return port;
}

// What a crawl of a coordinator and two worker nodes left for a test to
// check further: the coordinator's output and the nodes' pids.
struct TwoNodeCrawl {
  std::string coordinator_output;
  pid_t w1 = 0;
  pid_t w2 = 0;
};

// A coordinator (coordinator_args(config, coordinator_extra)) and two
// worker nodes, w1 and w2 (worker_args with worker_extra), run to the
// crawl's end, each process's exit code checked.
TwoNodeCrawl crawl_with_two_nodes(const ScratchDir& dir, const CrawlConfig& config,
                                  const std::vector<std::string>& coordinator_extra,
                                  const std::vector<std::string>& worker_extra) {
  ChildProcess coordinator(ACTORCRAWL_BINARY, coordinator_args(config, coordinator_extra), dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  ChildProcess w1(ACTORCRAWL_BINARY, worker_args(port, worker_extra, "w1"), dir.path("w1.log"));
  ChildProcess w2(ACTORCRAWL_BINARY, worker_args(port, worker_extra, "w2"), dir.path("w2.log"));
  const auto code = coordinator.wait(60s);
  INFO(coordinator.output());
  REQUIRE(code == std::optional<int>{0});
  CHECK(w1.wait(10s) == std::optional<int>{0});
  CHECK(w2.wait(10s) == std::optional<int>{0});
  return {coordinator.output(), w1.pid(), w2.pid()};
}

// What a crawl leaves, in a form two crawls can be compared by.
struct CrawlRows {
  std::vector<std::string> pages, links, nodes, edges, frontier;
  bool operator==(const CrawlRows& o) const {
    return pages == o.pages && links == o.links && nodes == o.nodes && edges == o.edges && frontier == o.frontier;
  }
};

CrawlRows rows_of(const std::string& db) {
  CrawlRows r;
  r.pages = column(db, "SELECT url || ' ' || status_code || ' ' || title || ' ' || depth FROM pages ORDER BY url");
  r.links = column(db, "SELECT p.url || ' -> ' || l.to_url FROM links l JOIN pages p ON p.page_id = l.from_page_id "
                       "ORDER BY 1");
  r.nodes = column(db, "SELECT domain_name || ' ' || crawl_count || ' ' || description FROM nodes ORDER BY 1");
  r.edges = column(db, R"(SELECT f.domain_name || ' -> ' || t.domain_name || ' ' || e.weight FROM edges e
                          JOIN nodes f ON f.node_id = e.from_node_id JOIN nodes t ON t.node_id = e.to_node_id
                          ORDER BY 1)");
  r.frontier = column(db, "SELECT url || ' ' || state || ' ' || depth FROM frontier ORDER BY url");
  return r;
}

// Every page of the web fetched and stored once, nothing left queued.
void check_complete(const std::string& db) {
  CHECK(count(db, "SELECT COUNT(*) FROM pages") == ClusterWeb::pages());
  CHECK(count(db, "SELECT COUNT(*) FROM pages WHERE status_code = 200") == ClusterWeb::pages());
  CHECK(count(db, "SELECT COUNT(*) FROM frontier WHERE state = 1") == ClusterWeb::pages());
  CHECK(count(db, "SELECT COUNT(*) FROM frontier WHERE state <> 1") == 0);
  CHECK(count(db, "SELECT COUNT(*) FROM dead_letters") == 0);
}

std::size_t requests_so_far(const LoopbackWeb& web) { return page_requests(web); }

// A worker with `worker_extra` flags joins the running coordinator; the crawl
// runs to its end, both exit 0, and every page is stored once.
void crawl_with_one_worker(ChildProcess& coordinator, int port, const std::vector<std::string>& worker_extra,
                           const CrawlConfig& config, const ScratchDir& dir) {
  ChildProcess worker(ACTORCRAWL_BINARY, worker_args(port, worker_extra), dir.path("worker.log"));
  const auto code = coordinator.wait(60s);
  INFO(coordinator.output());
  REQUIRE(code.has_value());
  CHECK(*code == 0);
  CHECK(worker.wait(10s) == std::optional<int>{0});
  check_complete(config.db_path);
}

}  // namespace

TEST_CASE("a coordinator and two worker processes crawl the web as one process would", "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(5);
  auto single = cluster_config(dir, web, "single.db");
  crawl(single);
  check_complete(single.db_path);

  web.web.clear_requests();
  auto config = cluster_config(dir, web, "cluster.db");
  ChildProcess coordinator(ACTORCRAWL_BINARY, coordinator_args(config), dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  ChildProcess w1(ACTORCRAWL_BINARY, worker_args(port), dir.path("w1.log"));
  ChildProcess w2(ACTORCRAWL_BINARY, worker_args(port), dir.path("w2.log"));

  const auto code = coordinator.wait(60s);
  INFO(coordinator.output());
  REQUIRE(code.has_value());
  CHECK(*code == 0);
  CHECK(w1.wait(10s) == std::optional<int>{0});
  CHECK(w2.wait(10s) == std::optional<int>{0});
  CHECK(w1.output().find("the coordinator ended the crawl") != std::string::npos);

  check_complete(config.db_path);
  CHECK(rows_of(config.db_path) == rows_of(single.db_path));
  // Both workers fetched, and no page was fetched twice.
  CHECK(page_requests(web.web) == static_cast<std::size_t>(ClusterWeb::pages()));
  std::set<std::string> targets;
  for (const auto& r : web.web.requests())
    if (r.target != "/robots.txt")
      CHECK(targets.insert(r.host_key + r.target).second);
  CHECK(coordinator.output().find("worker node") != std::string::npos);
  // One politeness clock for the whole cluster: two workers never hit a
  // host closer together than the delay.
  std::map<std::string, std::chrono::steady_clock::time_point> last;
  for (const auto& r : web.web.requests()) {
    if (auto it = last.find(r.host_key); it != last.end())
      CHECK(r.at - it->second >= std::chrono::milliseconds{config.politeness_delay_ms - 1});
    last[r.host_key] = r.at;
  }
}

TEST_CASE("a second coordinator on the same port exits 1 naming the address, and the first goes on",
          "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(0);
  const auto config = cluster_config(dir, web, "first.db");
  ChildProcess first(ACTORCRAWL_BINARY, coordinator_args(config), dir.path("first.log"));
  const int port = start_and_read_port(first);
  const std::string address = "127.0.0.1:" + std::to_string(port);

  // Its own database, so only the port is shared.
  ChildProcess second(ACTORCRAWL_BINARY, coordinator_args(cluster_config(dir, web, "second.db"), {}, address),
                      dir.path("second.log"));
  const auto code = second.wait(30s);
  INFO(second.output());
  REQUIRE(code.has_value());
  CHECK(*code == 1);
  CHECK(second.output().find("cannot listen on " + address + ": Address already in use") != std::string::npos);
  CHECK(second.output().find("listening on") == std::string::npos);

  // Workers that connect to the port reach the first, which crawls with them.
  crawl_with_one_worker(first, port, {}, config, dir);
}

TEST_CASE("a worker killed mid-crawl loses nothing, and a late worker finishes its share",
          "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(80);  // slow enough that the late worker finds work left
  auto config = cluster_config(dir, web, "cluster.db");
  // The coordinator fetches too, with one local worker beside the remote ones.
  ChildProcess coordinator(ACTORCRAWL_BINARY,
                           coordinator_args(config, {"--workers", "1", "--transfers-per-worker", "2"}),
                           dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  ChildProcess w1(ACTORCRAWL_BINARY, worker_args(port, {}, "w1"), dir.path("w1.log"));
  ChildProcess w2(ACTORCRAWL_BINARY, worker_args(port, {}, "w2"), dir.path("w2.log"));

  // Kill one worker once it has joined and the crawl is under way.
  REQUIRE(coordinator.wait_for_output("fetch worker worker-1@w1 joined", 30s));
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (requests_so_far(web.web) < ClusterWeb::pages() / 4 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  REQUIRE(coordinator.running());
  w1.signal(SIGKILL);
  REQUIRE(w1.wait(5s) == std::optional<int>{128 + SIGKILL});
  REQUIRE(coordinator.wait_for_output("fetch worker down", 10s));
  ChildProcess w3(ACTORCRAWL_BINARY, worker_args(port), dir.path("w3.log"));

  const auto code = coordinator.wait(60s);
  INFO(coordinator.output());
  REQUIRE(code.has_value());
  CHECK(*code == 0);
  CHECK(w2.wait(10s) == std::optional<int>{0});
  CHECK(w3.wait(10s) == std::optional<int>{0});
  CHECK(w3.output().find("joined the coordinator") != std::string::npos);
  check_complete(config.db_path);
  // Each page recorded once; a page may have been fetched twice only if the
  // killed worker had it in flight.
  CHECK(count(config.db_path, "SELECT COUNT(DISTINCT url) FROM pages") == ClusterWeb::pages());
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM links") ==
        count(dir.path("cluster.db"), "SELECT COUNT(DISTINCT from_page_id || ' ' || to_url) FROM links"));
}

TEST_CASE("a stopped worker is dropped by heartbeat timeout and its URLs are crawled by the other",
          "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(40);
  auto config = cluster_config(dir, web, "cluster.db");
  const std::vector<std::string> timing = {"--heartbeat-interval-ms", "200", "--peer-timeout-ms", "1000",
                                           "--reconnect-timeout-ms", "1500"};
  ChildProcess coordinator(ACTORCRAWL_BINARY, coordinator_args(config, timing), dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  ChildProcess w1(ACTORCRAWL_BINARY, worker_args(port, timing, "w1"), dir.path("w1.log"));
  ChildProcess w2(ACTORCRAWL_BINARY, worker_args(port, timing, "w2"), dir.path("w2.log"));

  REQUIRE(coordinator.wait_for_output("fetch worker worker-1@w1 joined", 30s));
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (requests_so_far(web.web) < ClusterWeb::pages() / 4 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  w1.signal(SIGSTOP);
  const auto stopped_at = std::chrono::steady_clock::now();
  // Detected through the missing heartbeats (peer_timeout, plus a beat);
  // the wait is a bound on a hang, not a measure of speed.
  REQUIRE(coordinator.wait_for_output("fetch worker down", 30s));
  INFO("detected after " << std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - stopped_at).count() << " ms");

  const auto code = coordinator.wait(60s);
  INFO(coordinator.output());
  REQUIRE(code.has_value());
  CHECK(*code == 0);
  check_complete(config.db_path);

  // Woken after the crawl: its coordinator is gone; it looks for it for
  // reconnect_timeout, then exits with the message and code 4.
  w1.signal(SIGCONT);
  const auto w1_code = w1.wait(20s);
  INFO(w1.output());
  REQUIRE(w1_code.has_value());
  CHECK(*w1_code == 4);
  CHECK(w1.output().find("cannot reach the coordinator") != std::string::npos);
}

TEST_CASE("a worker built from another message catalogue is refused at join, on both sides",
          "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(0);
  auto config = cluster_config(dir, web, "cluster.db");
  ChildProcess coordinator(ACTORCRAWL_BINARY, coordinator_args(config), dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);

  CrawlConfig worker;
  worker.connect = "127.0.0.1:" + std::to_string(port);
  worker.concurrent_workers = 1;
  worker.reconnect_timeout_ms = 2000;
  WorkerNodeOptions options;
  options.catalogue = "0123456789abcdef";
  set_quiet(true);
  const auto result = run_worker_node(worker, options);
  CHECK(result.outcome == WorkerNodeResult::Outcome::refused);
  CHECK(result.message.find("message catalogue mismatch") != std::string::npos);
  CHECK(result.message.find("0123456789abcdef") != std::string::npos);
  CHECK(coordinator.wait_for_output("refused worker node", 5s));
  CHECK(coordinator.output().find("0123456789abcdef") != std::string::npos);
  // Nothing was fetched for it; the coordinator still waits for workers.
  CHECK(page_requests(web.web) == 0);
  CHECK(coordinator.running());
  coordinator.signal(SIGTERM);
  CHECK(coordinator.wait(10s) == std::optional<int>{0});
}

TEST_CASE("a worker whose coordinator never answers gives up after reconnect_timeout", "[integration][cluster]") {
  CrawlConfig worker;
  worker.connect = closed_host("127.0.0.1");
  worker.concurrent_workers = 1;
  worker.reconnect_timeout_ms = 1200;
  set_quiet(true);
  const auto started = std::chrono::steady_clock::now();
  const auto result = run_worker_node(worker);
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(result.outcome == WorkerNodeResult::Outcome::coordinator_lost);
  CHECK(result.message.find("cannot reach the coordinator at " + worker.connect) != std::string::npos);
  CHECK(took >= 1200ms);  // it waited the reconnect timeout out (a lower bound only)
}

TEST_CASE("nodes talk TLS when given certificates, a worker without them is not let in", "[integration][cluster]") {
  ScratchDir dir;
  // A CA and one node certificate it signs, made with the openssl tool.
  const std::string make_certs =
    "cd '" + dir.path("") + "' && openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 "
    "-subj '/CN=actorcrawl test CA' && openssl req -newkey rsa:2048 -nodes -keyout node.key -out node.csr "
    "-subj '/CN=127.0.0.1' && openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
    "-out node.pem -days 2";
  if (std::system(("command -v openssl >/dev/null && (" + make_certs + ") >/dev/null 2>&1").c_str()) != 0) {
    WARN("skipped: the openssl tool is not installed or could not make a test certificate");
    return;
  }
  const std::vector<std::string> tls = {"--tls-cert", dir.path("node.pem"), "--tls-key", dir.path("node.key"),
                                        "--tls-ca", dir.path("ca.pem")};
  ClusterWeb web(0);
  auto config = cluster_config(dir, web, "cluster.db");
  ChildProcess coordinator(ACTORCRAWL_BINARY, coordinator_args(config, tls), dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  CHECK(coordinator.output().find("(TLS)") != std::string::npos);

  // Plain TCP against a TLS coordinator: no join, a clear reason.
  CrawlConfig plain;
  plain.connect = "127.0.0.1:" + std::to_string(port);
  plain.concurrent_workers = 1;
  plain.reconnect_timeout_ms = 500;
  set_quiet(true);
  const auto refused = run_worker_node(plain);
  CHECK(refused.outcome == WorkerNodeResult::Outcome::coordinator_lost);
  CHECK(refused.message.find("during the handshake") != std::string::npos);
  CHECK(page_requests(web.web) == 0);

  crawl_with_one_worker(coordinator, port, tls, config, dir);
}

namespace {

// VmRSS of a process, in kB (0 if it cannot be read).
long resident_kb(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0)
      return std::atol(line.c_str() + 6);
  return 0;
}

// Sends `bytes` to 127.0.0.1:port on a fresh connection and closes it.
void send_raw(int port, const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0)
    (void)!::write(fd, bytes.data(), bytes.size());
  ::close(fd);
}

}  // namespace

TEST_CASE("with TLS, a malformed BASP header is cut off in the handshake and workers still join",
          "[integration][cluster]") {
  ScratchDir dir;
  const std::string tls_dir = std::string{ACTORCRAWL_SOURCE_DIR} + "/tests/data/tls/";
  const std::vector<std::string> tls = {"--tls-cert", tls_dir + "node.pem", "--tls-key", tls_dir + "node.key",
                                        "--tls-ca", tls_dir + "ca.pem"};
  ClusterWeb web(0);
  auto config = cluster_config(dir, web, "cluster.db");
  ChildProcess coordinator(ACTORCRAWL_BINARY, coordinator_args(config, tls), dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  const long before_kb = resident_kb(coordinator.pid());

  // A BASP server_handshake header announcing a 4 GiB payload: plain TCP
  // CAF would allocate it. TLS must drop it before BASP sees a byte.
  std::string header(4, '\0');
  header += std::string(4, '\xff');       // payload_len 0xffffffff
  header += std::string(24, '\xff');      // operation data, source, destination
  for (int i = 0; i < 3; ++i)
    send_raw(port, header + std::string(64, '\xff'));
  std::this_thread::sleep_for(500ms);
  REQUIRE(coordinator.running());
  const long after_kb = resident_kb(coordinator.pid());
  INFO("coordinator resident " << before_kb << " kB before, " << after_kb << " kB after");
  CHECK(after_kb < before_kb + 64 * 1024);

  crawl_with_one_worker(coordinator, port, tls, config, dir);
}

// ---------------------------------------------------------------------------
// The same processes in separate network namespaces, joined by veth pairs to
// a bridge: messages between nodes cross real interfaces instead of one
// shared loopback, and a link can be cut. Hidden from the default run;
// tests/integration/netns_cluster.sh builds the namespaces (root only), passes
// their names in the environment, runs these with "[netns]", and removes
// everything afterwards. Every address stays inside 127.0.0.0/8
// (route_localnet on each interface), on the script's /24:
//   NET.1 coordinator   NET.2 worker w1   NET.3 worker w2
//   NET.101-104 the test web, on the bridge in this test's own namespace.

namespace {

struct Namespaces {
  std::string ip_tool, net, coordinator, w1, w2, w1_link;

  static Namespaces from_environment() {
    auto get = [](const char* name) {
      const char* v = std::getenv(name);
      return std::string{v == nullptr ? "" : v};
    };
    Namespaces n{get("ACTORCRAWL_NETNS_IP_TOOL"), get("ACTORCRAWL_NETNS_NET"), get("ACTORCRAWL_NETNS_COORDINATOR"), get("ACTORCRAWL_NETNS_W1"),
                 get("ACTORCRAWL_NETNS_W2"), get("ACTORCRAWL_NETNS_W1_LINK")};
    if (n.ip_tool.empty() || n.net.empty() || n.coordinator.empty() || n.w1.empty() || n.w2.empty() || n.w1_link.empty())
      FAIL("run through tests/integration/netns_cluster.sh, which sets up the namespaces");
    return n;
  }
  // `actorcrawl args...` inside namespace `ns`: ip execs the binary there.
  static std::vector<std::string> in(const std::string& ns, std::vector<std::string> args) {
    args.insert(args.begin(), {"netns", "exec", ns, ACTORCRAWL_BINARY});
    return args;
  }
};

}  // namespace

TEST_CASE("three nodes in three network namespaces crawl the web as one process would", "[.][netns]") {
  const auto ns = Namespaces::from_environment();
  ScratchDir dir;
  ClusterWeb web(5, ns.net, 101);
  auto single = cluster_config(dir, web, "single.db");
  crawl(single);
  check_complete(single.db_path);

  web.web.clear_requests();
  auto config = cluster_config(dir, web, "cluster.db");
  ChildProcess coordinator(ns.ip_tool, Namespaces::in(ns.coordinator, coordinator_args(config, {}, ns.net + "1:0")),
                           dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  ChildProcess w1(ns.ip_tool, Namespaces::in(ns.w1, worker_args(port, {}, "w1", ns.net + "1")), dir.path("w1.log"));
  ChildProcess w2(ns.ip_tool, Namespaces::in(ns.w2, worker_args(port, {}, "w2", ns.net + "1")), dir.path("w2.log"));

  const auto code = coordinator.wait(60s);
  INFO(coordinator.output() << "\n--- w1\n" << w1.output() << "\n--- w2\n" << w2.output());
  REQUIRE(code.has_value());
  CHECK(*code == 0);
  CHECK(w1.wait(10s) == std::optional<int>{0});
  CHECK(w2.wait(10s) == std::optional<int>{0});
  check_complete(config.db_path);
  CHECK(rows_of(config.db_path) == rows_of(single.db_path));
  // The fetches came from the workers' own addresses, from both of them,
  // each page once.
  std::set<std::string> targets, clients;
  for (const auto& r : web.web.requests()) {
    clients.insert(r.remote_addr);
    if (r.target != "/robots.txt")
      CHECK(targets.insert(r.host_key + r.target).second);
  }
  CHECK(clients == std::set<std::string>{ns.net + "2", ns.net + "3"});
  CHECK(page_requests(web.web) == static_cast<std::size_t>(ClusterWeb::pages()));
  CHECK(coordinator.output().find("fetch worker worker-1@w1 joined") != std::string::npos);
  CHECK(coordinator.output().find("fetch worker worker-1@w2 joined") != std::string::npos);
}

TEST_CASE("a worker cut off from the network is dropped by heartbeat timeout, nothing is lost", "[.][netns]") {
  const auto ns = Namespaces::from_environment();
  ScratchDir dir;
  ClusterWeb web(40, ns.net, 101);
  auto config = cluster_config(dir, web, "cluster.db");
  const std::vector<std::string> timing = {"--heartbeat-interval-ms", "200", "--peer-timeout-ms", "1000",
                                           "--reconnect-timeout-ms", "1500"};
  ChildProcess coordinator(ns.ip_tool, Namespaces::in(ns.coordinator, coordinator_args(config, timing, ns.net + "1:0")),
                           dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  ChildProcess w1(ns.ip_tool, Namespaces::in(ns.w1, worker_args(port, timing, "w1", ns.net + "1")), dir.path("w1.log"));
  ChildProcess w2(ns.ip_tool, Namespaces::in(ns.w2, worker_args(port, timing, "w2", ns.net + "1")), dir.path("w2.log"));

  REQUIRE(coordinator.wait_for_output("fetch worker worker-1@w1 joined", 30s));
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (page_requests(web.web) < ClusterWeb::pages() / 4 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  // Pull w1's cable: its side of the bridge goes down, so neither the
  // coordinator nor the web hears from it again, and no TCP reset tells
  // anyone; only the missing heartbeats do.
  REQUIRE(std::system((ns.ip_tool + " link set dev '" + ns.w1_link + "' down").c_str()) == 0);
  const auto cut_at = std::chrono::steady_clock::now();
  REQUIRE(coordinator.wait_for_output("fetch worker down", 30s));
  INFO("detected after " << std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - cut_at).count() << " ms");

  const auto code = coordinator.wait(60s);
  INFO(coordinator.output() << "\n--- w1\n" << w1.output() << "\n--- w2\n" << w2.output());
  REQUIRE(code.has_value());
  CHECK(*code == 0);
  CHECK(w2.wait(10s) == std::optional<int>{0});
  check_complete(config.db_path);
  CHECK(count(config.db_path, "SELECT COUNT(DISTINCT url) FROM pages") == ClusterWeb::pages());

  // The cut-off worker saw its coordinator go silent, tried for
  // reconnect_timeout, and gave up with the message and code 4.
  const auto w1_code = w1.wait(20s);
  REQUIRE(w1_code.has_value());
  CHECK(*w1_code == 4);
  CHECK(w1.output().find("cannot reach the coordinator") != std::string::npos);
}

// ---------------------------------------------------------------------------
// Every node a whole crawler: a worker node runs the coordinator's page
// processing (html_links, extraction rules, plugins) in a Processor of its
// own, and only pages' outcomes cross to the coordinator.

namespace {

// Extraction rules every page of the ClusterWeb matches.
const char* const kPageRules =
  R"json([{"name": "page", "fields": {"title": {"css": "title::text"}, "links": {"css": "a::attr(href)", "all": true, "url": true}}}])json";

// A plugin whose items say the page's words and Content-Type (a header:
// it reaches a plugin on any node), and which appends the pid of the
// process that started it to `ran_in`, so a test can tell which node ran it.
std::string words_plugin(const ScratchDir& dir, const std::string& ran_in) {
  const std::string script = dir.path("words.py");
  std::ofstream(script) << "import os\n"
                           "import actorcrawl_plugin\n"
                           "with open(" << '"' << ran_in << '"' << ", 'a') as f:\n"
                           "    f.write(str(os.getppid()) + '\\n')\n"
                           "def process(page):\n"
                           "    return {'items': [{'words': len(page.body.split()),\n"
                           "                       'type': page.header('content-type')}]}\n"
                           "actorcrawl_plugin.run(process)\n";
  return R"({"name": "words", "exec": ["python3", ")" + script + R"("]})";
}

std::vector<std::string> items_of(const std::string& db) {
  return column(db, "SELECT p.url || ' ' || i.kind || ' ' || i.item FROM items i JOIN pages p USING (page_id) "
                    "ORDER BY 1");
}

std::set<long> pids_in(const std::string& path) {
  std::set<long> out;
  std::ifstream in(path);
  for (long pid = 0; in >> pid;)
    out.insert(pid);
  return out;
}

}  // namespace

TEST_CASE("worker nodes run the coordinator's rules and plugins: the same pages, items and links as one process",
          "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(5);
  auto single = cluster_config(dir, web, "single.db");
  single.extract_rules = kPageRules;
  single.processors = {"html_links", words_plugin(dir, dir.path("single-ran.txt"))};
  crawl(single);
  check_complete(single.db_path);
  REQUIRE(count(single.db_path, "SELECT COUNT(*) FROM items") == 2 * ClusterWeb::pages());
  CHECK(count(single.db_path, "SELECT COUNT(*) FROM items WHERE item LIKE '%\"type\": \"text/html%'") ==
        ClusterWeb::pages());

  web.web.clear_requests();
  auto config = cluster_config(dir, web, "cluster.db");
  const std::string ran_in = dir.path("cluster-ran.txt");
  // Each node keeps the bodies it fetched in a file of its own, both
  // gathered in one directory, as WARC files are.
  const std::string bodies = dir.path("bodies");
  const TwoNodeCrawl cluster = crawl_with_two_nodes(
    dir, config, {"--extract", kPageRules, "--processors", "html_links", "--processors", words_plugin(dir, ran_in)},
    {"--bodies-dir", bodies});

  check_complete(config.db_path);
  CHECK(rows_of(config.db_path) == rows_of(single.db_path));
  CHECK(items_of(config.db_path) == items_of(single.db_path));
  // The plugin ran on the worker nodes only: the coordinator, which
  // fetches nothing, started none.
  const auto ran = pids_in(ran_in);
  CHECK(!ran.empty());
  for (long pid : ran) {
    INFO(pid);
    CHECK((pid == cluster.w1 || pid == cluster.w2));
  }
  // The coordinator's summary counts what the nodes' processors did.
  CHECK(cluster.coordinator_output.find("; words took " + std::to_string(ClusterWeb::pages())) != std::string::npos);

  // The bodies stayed on the nodes that fetched them: none crossed to the
  // coordinator's database, and the nodes' two files hold what one
  // process keeps.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM bodies") == 0);
  const std::string query = "SELECT content_digest || size FROM bodies";
  std::vector<std::string> on_nodes = column(bodies + "/actorcrawl-bodies-w1.db", query);
  const std::vector<std::string> on_w2 = column(bodies + "/actorcrawl-bodies-w2.db", query);
  CHECK(!on_nodes.empty());
  CHECK(!on_w2.empty());
  on_nodes.insert(on_nodes.end(), on_w2.begin(), on_w2.end());
  std::sort(on_nodes.begin(), on_nodes.end());
  on_nodes.erase(std::unique(on_nodes.begin(), on_nodes.end()), on_nodes.end());
  CHECK(on_nodes == column(single.db_path, query + " ORDER BY 1"));

  // So the scraper's loop works on a cluster's database as on one
  // process's: changed rules, `actorcrawl extract` with the nodes' files,
  // no request. Without them, it says what it could not read.
  web.web.clear_requests();
  const std::string changed = R"json([{"name": "heading", "fields": {"h1": {"css": "h1::text"}, "title": {"css": "title::text"}}}])json";
  const Outcome blind = run("extract --db " + config.db_path + " --bodies-dir '' --extract '" + changed + "'");
  INFO(blind.output);
  CHECK(blind.exit_code == 0);
  CHECK(blind.output.find("pages whose body was not kept, left as they were: " +
                          std::to_string(ClusterWeb::pages())) != std::string::npos);
  CHECK(blind.output.find("bodies_dir") != std::string::npos);
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM items WHERE kind = 'heading'") == 0);
  for (const std::string& db : {config.db_path, single.db_path}) {
    const Outcome extracted = run("extract --db " + db + " --bodies-dir '" + bodies + "' --extract '" + changed + "'");
    INFO(extracted.output);
    CHECK(extracted.exit_code == 0);
    CHECK(extracted.output.find("pages whose body was not kept") == std::string::npos);
    CHECK(count(db, "SELECT COUNT(*) FROM items WHERE kind = 'heading'") == ClusterWeb::pages());
  }
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM items WHERE kind <> 'heading'") == 0);
  CHECK(items_of(config.db_path) == items_of(single.db_path));
  // `parse --db` reads a node's body the same way.
  const Outcome parsed = run("parse --db " + config.db_path + " --bodies-dir '" + bodies + "' --url " + web.seed() +
                             " --css title::text");
  INFO(parsed.output);
  CHECK(parsed.exit_code == 0);
  CHECK(parsed.output.find("Root 0") != std::string::npos);
  CHECK(web.web.requests().empty());
}

TEST_CASE("worker nodes without a bodies_dir send the bodies they keep to the coordinator's database",
          "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(5);
  auto single = cluster_config(dir, web, "single.db");
  single.extract_rules = kPageRules;
  crawl(single);
  check_complete(single.db_path);
  auto config = cluster_config(dir, web, "cluster.db");
  crawl_with_two_nodes(dir, config, {"--extract", kPageRules}, {"--bodies-dir", ""});
  check_complete(config.db_path);
  CHECK(column(config.db_path, "SELECT content_digest || size FROM bodies ORDER BY 1") ==
        column(single.db_path, "SELECT content_digest || size FROM bodies ORDER BY 1"));
  const Outcome extracted = run("extract --db " + config.db_path + " --bodies-dir '' --extract '" + kPageRules + "'");
  INFO(extracted.output);
  CHECK(extracted.exit_code == 0);
  CHECK(extracted.output.find("pages whose body was not kept") == std::string::npos);
  CHECK(items_of(config.db_path) == items_of(single.db_path));
}

TEST_CASE("a worker node killed with SIGKILL mid-crawl loses no page and no item of its Processor",
          "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(60);
  auto config = cluster_config(dir, web, "cluster.db");
  ChildProcess coordinator(ACTORCRAWL_BINARY,
                           coordinator_args(config, {"--extract", kPageRules, "--processors", "html_links",
                                                     "--processors", words_plugin(dir, dir.path("ran.txt"))}),
                           dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  const std::string bodies = dir.path("bodies");
  ChildProcess w1(ACTORCRAWL_BINARY, worker_args(port, {"--transfers-per-worker", "8", "--bodies-dir", bodies}, "w1"),
                  dir.path("w1.log"));
  ChildProcess w2(ACTORCRAWL_BINARY, worker_args(port, {"--bodies-dir", bodies}, "w2"), dir.path("w2.log"));
  REQUIRE(coordinator.wait_for_output("fetch worker worker-1@w1 joined", 30s));
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (requests_so_far(web.web) < ClusterWeb::pages() / 3 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(2ms);
  REQUIRE(coordinator.running());
  w1.signal(SIGKILL);
  REQUIRE(w1.wait(5s) == std::optional<int>{128 + SIGKILL});
  const auto code = coordinator.wait(90s);
  INFO(coordinator.output());
  REQUIRE(code == std::optional<int>{0});
  CHECK(w2.wait(10s) == std::optional<int>{0});
  check_complete(config.db_path);
  // Every page has its items, though some were processed (or about to be)
  // on the node that died.
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM items WHERE kind = 'page'") == ClusterWeb::pages());
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM items WHERE kind = 'words'") == ClusterWeb::pages());
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM processor_failures") == 0);
  // Nor a body: a node commits the bodies it keeps before their pages'
  // rows leave it, so every page the coordinator recorded, the killed
  // node's too, has its body in one of the nodes' files.
  const Outcome extracted = run("extract --db " + config.db_path + " --bodies-dir '" + bodies + "' --extract '" + kPageRules + "' --kind page");
  INFO(extracted.output);
  CHECK(extracted.exit_code == 0);
  CHECK(extracted.output.find("pages processed again: " + std::to_string(ClusterWeb::pages())) != std::string::npos);
  CHECK(extracted.output.find("pages whose body was not kept") == std::string::npos);
}

// A plugin that takes its time, so that pages wait in the node's parse
// lane when the node is told to stop.
std::string slow_plugin(const ScratchDir& dir) {
  const std::string script = dir.path("slow.py");
  std::ofstream(script) << "import time\n"
                           "import actorcrawl_plugin\n"
                           "def process(page):\n"
                           "    time.sleep(0.05)\n"
                           "    return {'items': [{'bytes': len(page.body)}]}\n"
                           "actorcrawl_plugin.run(process)\n";
  return R"({"name": "slow", "exec": ["python3", ")" + script + R"("]})";
}

TEST_CASE("a worker node stopped mid-crawl hands in the pages it fetched: none is requested twice",
          "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(0);
  auto config = cluster_config(dir, web, "cluster.db");
  ChildProcess coordinator(ACTORCRAWL_BINARY,
                           coordinator_args(config, {"--processors", "html_links", "--processors", slow_plugin(dir)}),
                           dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  ChildProcess w1(ACTORCRAWL_BINARY, worker_args(port, {"--transfers-per-worker", "8", "--bodies-dir", dir.path("bodies")}, "w1"),
                  dir.path("w1.log"));
  REQUIRE(coordinator.wait_for_output("fetch worker worker-1@w1 joined", 30s));
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (requests_so_far(web.web) < ClusterWeb::pages() / 3 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(2ms);
  REQUIRE(coordinator.running());
  // Pages fetched, waiting for the slow plugin in the node's lane.
  w1.signal(SIGINT);
  const auto stopped = w1.wait(30s);
  INFO(w1.output());
  REQUIRE(stopped.has_value());
  ChildProcess w2(ACTORCRAWL_BINARY, worker_args(port, {"--bodies-dir", dir.path("bodies")}, "w2"), dir.path("w2.log"));
  const auto code = coordinator.wait(90s);
  INFO(coordinator.output());
  REQUIRE(code == std::optional<int>{0});
  CHECK(w2.wait(10s) == std::optional<int>{0});
  check_complete(config.db_path);
  std::set<std::string> targets;
  for (const auto& r : web.web.requests())
    if (r.target != "/robots.txt")
      CHECK(targets.insert(r.host_key + r.target).second);
  CHECK(page_requests(web.web) == static_cast<std::size_t>(ClusterWeb::pages()));
  CHECK(count(config.db_path, "SELECT COUNT(*) FROM items WHERE kind = 'slow'") == ClusterWeb::pages());
}

TEST_CASE("a worker node that cannot start the crawl's plugin is refused at join with exit 3 naming it",
          "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(0);
  auto config = cluster_config(dir, web, "cluster.db");
  // The program exists where the coordinator checks it, and is gone by the
  // time the node starts it (as on a machine that lacks it).
  const std::string program = dir.path("only-here.py");
  std::ofstream(program) << "import actorcrawl_plugin\nactorcrawl_plugin.run(lambda page: {})\n";
  const std::string entry = R"({"name": "local", "exec": ["python3", ")" + program + R"("]})";
  ChildProcess coordinator(ACTORCRAWL_BINARY, coordinator_args(config, {"--processors", "html_links", "--processors", entry}),
                           dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  std::filesystem::remove(program);
  ChildProcess worker(ACTORCRAWL_BINARY, worker_args(port, {"--bodies-dir", dir.path("bodies")}, "w1"), dir.path("w1.log"));
  CHECK(worker.wait(30s) == std::optional<int>{3});
  INFO(worker.output());
  CHECK(worker.output().find("this node cannot run the crawl's processing") != std::string::npos);
  CHECK(worker.output().find("plugin 'local'") != std::string::npos);
  CHECK(coordinator.wait_for_output("worker node w1 cannot run this crawl's processing", 10s));
  coordinator.signal(SIGINT);
  coordinator.wait(30s);
}

TEST_CASE("a worker node that cannot keep bodies in its bodies_dir is refused at join with exit 3 naming it",
          "[integration][cluster]") {
  ScratchDir dir;
  ClusterWeb web(0);
  auto config = cluster_config(dir, web, "cluster.db");
  ChildProcess coordinator(ACTORCRAWL_BINARY, coordinator_args(config, {"--extract", kPageRules}),
                           dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  // A file where the directory would be made.
  std::ofstream(dir.path("in-the-way")) << "a file";
  const std::string bodies = dir.path("in-the-way") + "/bodies";
  ChildProcess worker(ACTORCRAWL_BINARY, worker_args(port, {"--bodies-dir", bodies}, "w1"), dir.path("w1.log"));
  CHECK(worker.wait(30s) == std::optional<int>{3});
  INFO(worker.output());
  CHECK(worker.output().find("this node cannot run the crawl's processing: bodies_dir: ") != std::string::npos);
  CHECK(worker.output().find(bodies) != std::string::npos);
  CHECK(coordinator.wait_for_output("worker node w1 cannot run this crawl's processing", 10s));
  coordinator.signal(SIGINT);
  coordinator.wait(30s);
}

TEST_CASE("worker nodes send what the site requires and run each rules: the same items as one process",
          "[integration][cluster][site_requests]") {
  ScratchDir dir;
  LoopbackWeb web;
  const std::string site = web.add_host("127.0.0.1");
  const auto allowed = [](const demoweb::ServedRequest& r, bool listing) {
    const std::string cookies = r.header("Cookie");
    return r.header("X-Key") == "k-NODE-SECRET" &&
           (!listing || (cookies.find("consent=yes") != std::string::npos &&
                         cookies.find("session=s-NODE-SECRET") != std::string::npos));
  };
  demoweb::Response front = html(page("Shop", {"/list/1", "/list/2"}));
  front.headers.emplace_back("Set-Cookie", "consent=yes; Path=/");
  web.route(site, "/", [front, allowed](const demoweb::ServedRequest& r) {
    return allowed(r, false) ? front : html("denied", 403);
  });
  for (int n = 1; n <= 2; ++n) {
    std::string body = "<html><body>";
    for (int i = 0; i < 5; ++i)
      body += "<div class=product><h2>P" + std::to_string(n * 10 + i) + "</h2><span class=price>" +
              std::to_string(n * 10 + i) + ".5</span><ul><li>S</li><li>M</li></ul></div>";
    body += "</body></html>";
    web.route(site, "/list/" + std::to_string(n), [body, allowed](const demoweb::ServedRequest& r) {
      return allowed(r, true) ? html(body) : html("denied", 403);
    });
  }
  const std::string cookies = dir.path("cookies.txt");
  std::ofstream(cookies) << "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts-NODE-SECRET\n";
  const std::string config = dir.path("shop.yaml");
  std::ofstream(config) << "headers:\n  - {hosts: '^127\\.0\\.0\\.1$', X-Key: 'k-NODE-SECRET'}\n"
                        << "cookies_file: '" << cookies << "'\n"
                        << "extract:\n"
                           "  - name: product\n"
                           "    each: 'div.product'\n"
                           "    fields:\n"
                           "      name: {css: 'h2::text'}\n"
                           "      price: {css: 'span.price::text', type: float, required: true}\n"
                           "      sizes: {each: 'li', fields: {size: {css: '::text'}}}\n";
  const auto items = [](const std::string& db) {
    return column(db, "SELECT p.url || ' ' || i.item FROM items i JOIN pages p USING (page_id) ORDER BY 1");
  };
  const std::string seed = LoopbackWeb::url(site, "/");
  const std::string common = " --allowed-domains 127.0.0.1 --politeness-delay-ms 0 --no-sitemaps";
  const Outcome single = run("crawl --quiet --config " + config + " --seed " + seed + common + " --db " +
                             dir.path("single.db") + " --metrics " + dir.path("single.metrics"));
  INFO(single.output);
  REQUIRE(single.exit_code == 0);
  REQUIRE(items(dir.path("single.db")).size() == 10);

  ChildProcess coordinator(ACTORCRAWL_BINARY,
                           {"coordinator", "--listen", "127.0.0.1:0", "--config", config, "--seed", seed,
                            "--allowed-domains", "127.0.0.1", "--politeness-delay-ms", "0", "--no-sitemaps", "--db",
                            dir.path("cluster.db"), "--metrics", dir.path("cluster.metrics")},
                           dir.path("coordinator.log"));
  const int port = start_and_read_port(coordinator);
  ChildProcess worker(ACTORCRAWL_BINARY, worker_args(port, {"--bodies-dir", dir.path("bodies")}, "w1"), dir.path("w1.log"));
  const auto code = coordinator.wait(60s);
  INFO(coordinator.output());
  REQUIRE(code == std::optional<int>{0});
  CHECK(worker.wait(10s) == std::optional<int>{0});
  CHECK(items(dir.path("cluster.db")) == items(dir.path("single.db")));
  CHECK(count(dir.path("cluster.db"), "SELECT COUNT(*) FROM pages WHERE status_code = 200") == 3);
  CHECK(coordinator.output().find("NODE-SECRET") == std::string::npos);
  CHECK(worker.output().find("NODE-SECRET") == std::string::npos);
}
