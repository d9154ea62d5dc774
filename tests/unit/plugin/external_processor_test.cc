#include "core/plugin/external_processor.h"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/config/crawl_config.h"
#include "tests/unit/plugin/plugin_test_support.h"
#include "tests/support/process_gone.h"
#include "tests/unit/temp_path.h"

namespace actorcrawl {
namespace {

using namespace actorcrawl::testing;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

ExternalProcessorSpec misbehaving(milliseconds timeout = seconds(30), int instances = 1) {
  ExternalProcessorSpec spec = plugin_spec("misbehaving", {"python3", kTestPlugins + "misbehaving.py"});
  spec.timeout = timeout;
  spec.instances = instances;
  spec.max_answer_bytes = 1 << 20;
  return spec;
}

// A restarting plugin fails pages fast (unavailable) until it is back:
// the page is offered again until it is answered well.
PageAnalysis eventually_answered(ExternalProcessor& p, const std::string& path) {
  const auto deadline = Clock::now() + kEventually;
  for (;;) {
    PageAnalysis a = process(p, path);
    if (a.processor_failures.empty())
      return a;
    INFO("last failure: " << a.processor_failures.front().reason << ": " << a.processor_failures.front().detail);
    REQUIRE(Clock::now() < deadline);
    std::this_thread::sleep_for(milliseconds(20));
  }
}

long pid_of(const PageAnalysis& a) { return first_item(a)["pid"].get<long>(); }

// Every child this process started is gone and reaped.
bool no_child_processes() {
  errno = 0;
  return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

std::size_t entries(const char* dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir))
    ++n;
  return n;
}

// The threads of the process, once every thread that was joined has left
// /proc: a joined thread's entry can outlast the join by a moment (the
// kernel wakes the joiner before it reaps the thread; under qemu-user the
// host thread ends after the guest's join returns). Waits up to 10 s for
// the count to come down to `expected`, and returns it: no more than
// `expected` unless a thread outlived its owner (fewer when one that was
// already ending at the first count has gone since).
std::size_t threads_settled_at(std::size_t expected) {
  std::size_t n = entries("/proc/self/task");
  for (int i = 0; i < 1000 && n > expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    n = entries("/proc/self/task");
  }
  return n;
}

TEST_CASE("a plugin's items and links reach the analysis, links resolved against the final URL", "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(misbehaving(), log.sink());
  CHECK(std::string{p->name()} == "misbehaving");
  PageAnalysis a;
  a.links.push_back(HtmlLink{"kept.html", false});
  p->process(html_page("https://example.com/links"), a);
  REQUIRE(a.processor_failures.empty());
  REQUIRE(a.items.size() == 1);
  CHECK(a.items[0].kind == "misbehaving");
  CHECK(first_item(a)["url"] == "https://example.com/start");
  std::vector<std::string> hrefs;
  for (const auto& link : a.links) {
    hrefs.push_back(link.href);
    CHECK_FALSE(link.nofollow);
  }
  // mailto: is no crawlable URL: dropped.
  CHECK(hrefs == std::vector<std::string>{"kept.html", "https://example.com/other.html", "https://example.com/up.html",
                                          "https://other.example/x"});
  const auto c = p->counts();
  CHECK(c.pages == 1);
  CHECK(c.ok == 1);
  CHECK(c.restarts == 0);
}

TEST_CASE("a plugin reads the page: URLs, status, headers and the body in UTF-8", "[plugin]") {
  auto p = ExternalProcessor::start(misbehaving());
  const std::string body = "<p>caf\xe9</p>";
  const std::string head = "HTTP/1.1 200 OK\r\nServer: test\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n";
  FetchedPage page = html_page("https://example.com/echo");
  page.depth = 3;
  page.charset = "windows-1252";
  page.body = body;
  page.response_head = head;
  page.truncated = true;
  PageAnalysis a;
  p->process(page, a);
  REQUIRE(a.processor_failures.empty());
  const json item = first_item(a);
  CHECK(item["id"].get<std::uint64_t>() >= 1);
  CHECK(item["url"] == "https://example.com/start");
  CHECK(item["final_url"] == "https://example.com/echo");
  CHECK(item["status"] == 200);
  CHECK(item["depth"] == 3);
  CHECK(item["content_type"] == "text/html");
  CHECK(item["truncated"] == true);
  CHECK(item["body"] == "<p>caf\xc3\xa9</p>");
  CHECK(item["headers"]["server"] == "test");
  CHECK(item["headers"]["set-cookie"] == "a=1, b=2");
}

TEST_CASE("only pages whose final URL the urls pattern matches are sent", "[plugin]") {
  ExternalProcessorSpec spec = misbehaving();
  spec.urls = "/wanted/";
  auto p = ExternalProcessor::start(spec);
  PageAnalysis skipped = process(*p, "/other/page");
  CHECK(skipped.items.empty());
  CHECK(skipped.processor_failures.empty());
  PageAnalysis sent = process(*p, "/wanted/page");
  CHECK(sent.items.size() == 1);
  CHECK(p->counts().pages == 1);
}

TEST_CASE("answers in another order reach the right callers, several threads at once", "[plugin]") {
  // Four pages held, then answered last first: only callers in parallel
  // can fill a batch, so the order is surely not the sending order.
  auto p = ExternalProcessor::start(plugin_spec("reverse", {"python3", kTestPlugins + "reverse_batches.py", "4"}));
  constexpr int kThreads = 4;
  constexpr int kPagesEach = 6;
  std::atomic<int> right{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPagesEach; ++i) {
        FetchedPage page = html_page("https://example.com/");
        page.url = "https://example.com/" + std::to_string(t) + "/" + std::to_string(i);
        PageAnalysis a;
        p->process(page, a);
        if (a.processor_failures.empty() && a.items.size() == 1 &&
            json::parse(a.items[0].json)["url"] == page.url)
          ++right;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  CHECK(right == kThreads * kPagesEach);
  CHECK(p->counts().ok == kThreads * kPagesEach);
}

TEST_CASE("instances: 2 runs two processes, both given pages", "[plugin]") {
  auto p = ExternalProcessor::start(misbehaving(seconds(30), 2));
  std::set<long> pids;
  for (int i = 0; i < 6; ++i)
    pids.insert(pid_of(process(*p, "/page")));
  CHECK(pids.size() == 2);
}

TEST_CASE("a plugin that crashes fails that page, it is restarted and later pages are processed", "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(misbehaving(), log.sink());
  const long first_pid = pid_of(process(*p, "/page"));
  const auto failure = only_failure(process(*p, "/crash"));
  CHECK(failure.processor == "misbehaving");
  CHECK(failure.reason == "crashed");
  CHECK(failure.detail == "exited with status 3");
  CHECK(log.eventually_contains("plugin misbehaving: dying on /crash"));
  CHECK(log.eventually_contains("exited with status 3; restarting it in 100 ms"));
  const long second_pid = pid_of(eventually_answered(*p, "/page"));
  CHECK(second_pid != first_pid);
  const auto c = p->counts();
  CHECK(c.crashed == 1);
  CHECK(c.restarts >= 1);
}

TEST_CASE("while one instance restarts, pages go to another", "[plugin]") {
  auto p = ExternalProcessor::start(misbehaving(seconds(30), 2));
  CHECK(only_failure(process(*p, "/crash")).reason == "crashed");
  // The crashed one is down as soon as its page has failed.
  for (int i = 0; i < 3; ++i)
    CHECK(process(*p, "/page").processor_failures.empty());
}

TEST_CASE("callers beyond max_in_flight wait for a slot instead of queueing pages", "[plugin]") {
  // It answers each page at once.
  ExternalProcessorSpec spec = plugin_spec("one_at_a_time", {"python3", kTestPlugins + "reverse_batches.py", "1"});
  spec.max_in_flight = 1;
  auto p = ExternalProcessor::start(spec);
  std::atomic<int> answered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i)
        if (process(*p, "/page").processor_failures.empty())
          ++answered;
    });
  for (auto& t : threads)
    t.join();
  CHECK(answered == 20);
}

TEST_CASE("a plugin that cannot be started again gives up after max_failures_in_a_row, its pages fail unavailable",
          "[plugin]") {
  CapturedLog log;
  testing::TempPath script("vanishing_plugin", ".sh");
  script.write("#!/bin/sh\nexec python3 " + kTestPlugins + "misbehaving.py\n");
  ::chmod(script.str().c_str(), 0755);
  ExternalProcessorSpec spec = misbehaving();
  spec.exec = {script.str()};
  spec.max_failures_in_a_row = 3;
  auto p = ExternalProcessor::start(spec, log.sink());
  std::filesystem::remove(script.str());
  CHECK(only_failure(process(*p, "/crash")).reason == "crashed");
  CHECK(p->failed_for_good().empty());
  // The page waits for a restart that never comes: two more failures (the
  // restarts) make three in a row, and the plugin gives up.
  const auto failure = only_failure(process(*p, "/page"));
  CHECK(failure.reason == "unavailable");
  CHECK(failure.detail == "the plugin gave up after 3 failures in a row");
  CHECK(log.contains("plugin misbehaving: cannot restart instance 1 ('" + script.str() +
                     "': No such file or directory); trying again in"));
  const std::string why = p->failed_for_good();
  CHECK(why.find("plugin 'misbehaving' failed 3 times in a row with no good answer between (the last time: could "
                 "not be started again ('" + script.str() + "': No such file or directory))") == 0);
  CHECK(why.find("its last lines on stderr: dying on /crash") != std::string::npos);
  CHECK(why.find("The crawl stops.") != std::string::npos);
  CHECK(why.find("processor_failures") != std::string::npos);
  CHECK(log.eventually_contains("The crawl stops."));
  // From now on a page fails at once.
  CHECK(only_failure(process(*p, "/page")).detail == "the plugin gave up after 3 failures in a row");
}

TEST_CASE("a plugin that dies on every page gives up after max_failures_in_a_row in a row", "[plugin]") {
  CapturedLog log;
  ExternalProcessorSpec spec = misbehaving();
  spec.max_failures_in_a_row = 4;
  auto p = ExternalProcessor::start(spec, log.sink());
  for (int i = 0; i < 3; ++i) {
    CHECK(only_failure(process(*p, "/crash")).reason == "crashed");
    CHECK(p->failed_for_good().empty());
  }
  // A good answer between failures starts the count again.
  CHECK(process(*p, "/page").processor_failures.empty());
  for (int i = 0; i < 3; ++i)
    CHECK(only_failure(process(*p, "/crash")).reason == "crashed");
  CHECK(p->failed_for_good().empty());
  CHECK(only_failure(process(*p, "/crash")).reason == "crashed");
  CHECK(p->failed_for_good().find("failed 4 times in a row") != std::string::npos);
  CHECK(p->failed_for_good().find("exited with status 3") != std::string::npos);
  CHECK(only_failure(process(*p, "/page")).reason == "unavailable");
  CHECK(log.eventually_contains("not restarting it: the plugin gave up"));
}

TEST_CASE("pages that come while the plugin restarts wait for it, they do not fail", "[plugin]") {
  auto p = ExternalProcessor::start(misbehaving());
  const long first = pid_of(process(*p, "/page"));
  CHECK(only_failure(process(*p, "/crash")).reason == "crashed");
  // At once, well inside the 100 ms before the restart: held, then answered.
  const PageAnalysis a = process(*p, "/page");
  REQUIRE(a.processor_failures.empty());
  CHECK(pid_of(a) != first);
  CHECK(p->counts().unavailable == 0);
}

TEST_CASE("a plugin that dies with several pages in flight fails only the page it died on, the others are sent "
          "again",
          "[plugin]") {
  // It holds four pages before it answers, and dies holding /die: every
  // page it held was in flight. Sent again one at a time, /die alone is
  // what kills it.
  CapturedLog log;
  ExternalProcessorSpec spec = plugin_spec("reads_ahead", {"python3", kTestPlugins + "reads_ahead.py", "4"});
  auto p = ExternalProcessor::start(spec, log.sink());
  const std::vector<std::string> paths = {"/a", "/b", "/die", "/c"};
  std::vector<PageAnalysis> results(paths.size());
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < paths.size(); ++i)
    threads.emplace_back([&, i] {
      ++ready;
      while (ready < static_cast<int>(paths.size())) std::this_thread::yield();
      results[i] = process(*p, paths[i]);
    });
  for (auto& t : threads)
    t.join();
  for (std::size_t i = 0; i < paths.size(); ++i) {
    INFO(paths[i]);
    if (paths[i] == "/die") {
      CHECK(only_failure(results[i]).reason == "crashed");
    } else {
      REQUIRE(results[i].processor_failures.empty());
      CHECK(first_item(results[i])["url"] == "https://example.com" + paths[i]);
    }
  }
  const auto c = p->counts();
  CHECK(c.ok == 3);
  CHECK(c.crashed == 1);
  CHECK(c.unavailable == 0);
  INFO("pages sent again: " << c.resent);
  CHECK(c.resent >= 1);
  CHECK(p->failed_for_good().empty());
}

TEST_CASE("a plugin that hangs times out, it is restarted and later pages are processed", "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(misbehaving(milliseconds(300)), log.sink());
  const auto failure = only_failure(process(*p, "/hang"));
  CHECK(failure.reason == "timeout");
  CHECK(failure.detail == "no answer in 300 ms");
  CHECK(log.contains("had no answer to page"));
  eventually_answered(*p, "/page");
  CHECK(p->counts().timeout >= 1);
  CHECK(p->counts().restarts >= 1);
}

TEST_CASE("an answer past max_items or max_links keeps the first ones and records too_large", "[plugin]") {
  ExternalProcessorSpec spec = misbehaving();
  spec.max_answer_bytes = std::size_t{16} << 20;
  spec.max_items = 100;
  spec.max_links = 10;
  auto p = ExternalProcessor::start(spec);
  const long pid = pid_of(process(*p, "/page"));
  const PageAnalysis a = process(*p, "/many");
  CHECK(a.items.size() == 100);
  CHECK(a.links.size() == 10);
  REQUIRE(a.processor_failures.size() == 1);
  const auto& failure = a.processor_failures.front();
  CHECK(failure.reason == "too_large");
  CHECK(failure.detail == "answered 310000 items and 4000 links; kept the first 100 and 10 (max_items 100, max_links 10)");
  CHECK(pid_of(process(*p, "/page")) == pid);  // not restarted
  CHECK(p->counts().too_large == 1);
}

TEST_CASE("an answer nested 60,000 deep fails its page as bad_answer, the plugin goes on", "[plugin]") {
  auto p = ExternalProcessor::start(misbehaving());
  const long pid = pid_of(process(*p, "/page"));
  const auto failure = only_failure(process(*p, "/deep"));
  CHECK(failure.reason == "bad_answer");
  CHECK(failure.detail == "a JSON line nested deeper than 64 levels");
  CHECK(pid_of(process(*p, "/page")) == pid);
}

TEST_CASE("an interrupt gives a hung plugin a short grace, then kills it and fails its page interrupted",
          "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(misbehaving(seconds(60)), log.sink());
  PageAnalysis hung;
  std::thread caller([&] { hung = process(*p, "/hang"); });
  // Once the page is with the plugin (its timeout is a minute away).
  const auto deadline = Clock::now() + kEventually;
  while (p->counts().pages < 1 && Clock::now() < deadline) std::this_thread::sleep_for(milliseconds(5));
  p->interrupt();
  caller.join();
  const auto failure = only_failure(hung);
  CHECK(failure.reason == "interrupted");
  CHECK(failure.detail == "the crawl stopped; the plugin had not answered 1000 ms later");
  CHECK(log.eventually_contains("was killed: the crawl is stopping and it had not answered page"));
  // Pages given after the grace are not sent.
  CHECK(only_failure(process(*p, "/page")).reason == "interrupted");
  CHECK(p->counts().interrupted == 2);
  CHECK(p->failed_for_good().empty());  // stopping is no crash loop
}

TEST_CASE("a plugin's stderr reaches the log at a bounded rate, what is left out counted and said", "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(misbehaving(), log.sink());
  CHECK(process(*p, "/chatty").processor_failures.empty());
  // The reader takes the lines in its own time: wait for the last one to be counted.
  const auto deadline = Clock::now() + kEventually;
  while (log.count_containing("chatter ") + p->counts().lines_not_logged < 5000 && Clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(10));
  const std::size_t logged = log.count_containing("plugin misbehaving: chatter ");
  INFO(logged << " logged");
  CHECK(logged >= ExternalProcessor::kLogBurst);
  CHECK(logged < 1000);
  CHECK(p->counts().lines_not_logged == 5000 - logged);
  // The next line logged (once the rate allows one: a tenth of a second)
  // says how many were left out.
  std::this_thread::sleep_for(milliseconds(100));
  CHECK(process(*p, "/stderr").processor_failures.empty());
  CHECK(log.eventually_contains(" lines of its output were not logged (more than 20 a second)"));
}

TEST_CASE("a stdout line that is no answer is logged as the plugin's output and counted, never fatal", "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(misbehaving(), log.sink());
  const long pid = pid_of(process(*p, "/page"));
  const PageAnalysis a = process(*p, "/garbage");
  CHECK(a.processor_failures.empty());
  CHECK(pid_of(a) == pid);  // not restarted
  CHECK(log.eventually_contains("plugin misbehaving (stdout): this is not json"));
  const auto c = p->counts();
  CHECK(c.output_lines == 1);
  CHECK(c.bad_answer == 0);
  CHECK(c.restarts == 0);
}

TEST_CASE("an answer that names its page fails that page alone, the plugin goes on", "[plugin]") {
  struct Case {
    const char* path;
    const char* reason;
    const char* detail;
  };
  const Case cases[] = {
      {"/bad-items", "bad_answer", "an item is not a JSON object"},
      {"/error", "plugin_error", "no luck"},
      // The line is read to its end and dropped: the next is read in step.
      {"/huge", "too_large", "an answer line of 2097186 bytes, over max_answer_bytes (1048576)"},
  };
  auto p = ExternalProcessor::start(misbehaving());
  const long pid = pid_of(process(*p, "/page"));
  for (const auto& c : cases) {
    INFO(c.path);
    const auto failure = only_failure(process(*p, c.path));
    CHECK(failure.reason == c.reason);
    CHECK(failure.detail == c.detail);
    CHECK(pid_of(process(*p, "/page")) == pid);  // not restarted
  }
  const auto counts = p->counts();
  CHECK(counts.bad_answer == 1);
  CHECK(counts.plugin_error == 1);
  CHECK(counts.too_large == 1);
  CHECK(counts.ok == 4);
  CHECK(counts.restarts == 0);
}

TEST_CASE("an answer with an id the plugin was not sent fails the page as unknown_id", "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(misbehaving(), log.sink());
  const auto failure = only_failure(process(*p, "/unknown-id"));
  CHECK(failure.reason == "unknown_id");
  CHECK(failure.detail.find("which it was not sent or had answered already") != std::string::npos);
  eventually_answered(*p, "/page");
  CHECK(p->counts().unknown_id == 1);
}

TEST_CASE("a page answered twice: the second answer restarts the plugin", "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(misbehaving(), log.sink());
  CHECK(process(*p, "/twice").processor_failures.empty());
  CHECK(log.eventually_contains("which it was not sent or had answered already"));
  eventually_answered(*p, "/page");
  CHECK(p->counts().restarts >= 1);
}

TEST_CASE("an answer over max_answer_bytes that names no page restarts the plugin", "[plugin]") {
  auto p = ExternalProcessor::start(misbehaving());
  const long pid = pid_of(process(*p, "/page"));
  const auto failure = only_failure(process(*p, "/huge-no-id"));
  CHECK(failure.reason == "too_large");
  CHECK(pid_of(eventually_answered(*p, "/page")) != pid);
}

// A plugin that never reads its stdin, nor minds its end.
ExternalProcessorSpec deaf() {
  ExternalProcessorSpec spec = plugin_spec("deaf", {"python3", "-c", "import time; time.sleep(3600)"});
  spec.timeout = milliseconds(300);
  spec.start_timeout = milliseconds(300);
  return spec;
}

TEST_CASE("a plugin that never reads its stdin cannot hold a caller", "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(deaf(), log.sink());
  CHECK(log.eventually_contains("plugin deaf: instance 1 has not read its hello in 300 ms; sending it pages anyway"));
  const std::string body(1 << 20, 'a');  // more than a pipe holds
  FetchedPage page = html_page("https://example.com/big");
  page.body = body;
  PageAnalysis a;
  p->process(page, a);
  const auto failure = only_failure(a);
  CHECK(failure.reason == "timeout");
  CHECK(failure.detail == "could not write the page in 300 ms: the plugin does not read its stdin");
  p.reset();  // it ignores its stdin's end too: killed
  CHECK(no_child_processes());
}

TEST_CASE("a plugin that ignores the end of its stdin is killed when the processor goes", "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(deaf(), log.sink());
  p.reset();
  CHECK(no_child_processes());
}

TEST_CASE("a plugin that cannot start is an error naming it and the reason", "[plugin]") {
  // The start_timeout is only a hang's bound: an exit ends the wait.
  ExternalProcessorSpec spec = plugin_spec("ghost", {});

  spec.exec = {"actorcrawl-no-such-plugin"};
  try {
    ExternalProcessor::start(spec);
    FAIL("started");
  } catch (const PluginStartError& e) {
    CHECK(std::string{e.what()} ==
          "plugin 'ghost': cannot start 'actorcrawl-no-such-plugin': No such file or directory");
  }

  testing::TempPath script("not_executable", ".py");
  script.write("print('hi')\n");
  ::chmod(script.str().c_str(), 0644);
  spec.exec = {script.str()};
  try {
    ExternalProcessor::start(spec);
    FAIL("started");
  } catch (const PluginStartError& e) {
    CHECK(std::string{e.what()}.find("Permission denied") != std::string::npos);
  }

  spec.exec = {"python3", "-c", "import sys; sys.stderr.write('cannot load the model\\n'); sys.exit(3)"};
  try {
    ExternalProcessor::start(spec);
    FAIL("started");
  } catch (const PluginStartError& e) {
    const std::string what = e.what();
    CHECK(what.rfind("plugin 'ghost': 'python3 -c ", 0) == 0);
    CHECK(what.find("failed as it started: exited with status 3") != std::string::npos);
    CHECK(what.find("its stderr said: cannot load the model") != std::string::npos);
  }

  spec.exec = {"python3"};
  spec.instances = 0;
  CHECK_THROWS_AS(ExternalProcessor::start(spec), PluginStartError);
  spec.instances = 1;
  spec.urls = "(";
  CHECK_THROWS_AS(ExternalProcessor::start(spec), PluginStartError);
  CHECK(no_child_processes());
}

TEST_CASE("a plugin's stderr lines reach the log with its name", "[plugin]") {
  CapturedLog log;
  auto p = ExternalProcessor::start(misbehaving(), log.sink());
  CHECK(process(*p, "/stderr").processor_failures.empty());
  CHECK(log.eventually_contains("plugin misbehaving: hello from the plugin"));
}

TEST_CASE("no child process, thread or descriptor outlives the processor", "[plugin]") {
  // One thread forks every plugin for the program's life (so a plugin's
  // PR_SET_PDEATHSIG follows the program, not a thread that may end): it
  // is started here, before counting, by a processor that comes and goes.
  ExternalProcessor::start(misbehaving()).reset();
  const std::size_t fds_before = entries("/proc/self/fd");
  const std::size_t threads_before = entries("/proc/self/task");
  std::vector<long> pids;
  {
    auto p = ExternalProcessor::start(misbehaving(seconds(30), 2));
    for (int i = 0; i < 4; ++i)
      pids.push_back(pid_of(process(*p, "/page")));
    CHECK(only_failure(process(*p, "/crash")).reason == "crashed");
    pids.push_back(pid_of(eventually_answered(*p, "/page")));
  }
  CHECK(no_child_processes());
  for (long pid : pids) {
    CHECK(::kill(static_cast<pid_t>(pid), 0) == -1);
    CHECK(errno == ESRCH);
  }
  CHECK(entries("/proc/self/fd") == fds_before);
  CHECK(threads_settled_at(threads_before) <= threads_before);
}

TEST_CASE("a Python plugin imports the helper module from anywhere: its directory leads PYTHONPATH", "[plugin]") {
  // Found beside the running program (the build tree's copy here).
  const auto dirs = plugin_helper_dirs();
  REQUIRE(dirs.size() == 1);
  CHECK(std::filesystem::exists(dirs.front() + "/actorcrawl_plugin.py"));
  // A plugin as docs/plugins.md writes it, in a directory of its own, with
  // no sys.path of its own making and a print() at import time.
  testing::TempPath script("helper_user", ".py");
  script.write("import actorcrawl_plugin\nprint('loading the model')\n"
               "actorcrawl_plugin.run(lambda page: {'items': [{'length': len(page.body)}]})\n");
  CapturedLog log;
  ExternalProcessorSpec spec = plugin_spec("helper_user", {"python3", script.str()});
  spec.python_path = dirs;
  auto p = ExternalProcessor::start(spec, log.sink());
  const PageAnalysis a = process(*p, "/page");
  REQUIRE(a.processor_failures.empty());
  CHECK(first_item(a)["length"] == 0);
  CHECK(log.eventually_contains("plugin helper_user (stdout): loading the model"));
  // Without it, the import fails at start, naming the module.
  spec.python_path.clear();
  try {
    ExternalProcessor::start(spec, log.sink());
    FAIL("started without the helper on its path");
  } catch (const PluginStartError& e) {
    CHECK(std::string{e.what()}.find("No module named 'actorcrawl_plugin'") != std::string::npos);
  }
}

TEST_CASE("what a plugin starts goes with it, a setsid() child too", "[plugin]") {
  testing::TempPath pids("daemon_pids", ".txt");
  auto p = ExternalProcessor::start(
    plugin_spec("daemon", {"python3", kTestPlugins + "starts_daemon.py", pids.str()}));
  CHECK(process(*p, "/page").processor_failures.empty());
  long plugin = 0, child = 0;
  {
    const auto deadline = Clock::now() + kEventually;
    while (!std::filesystem::exists(pids.str()) && Clock::now() < deadline)
      std::this_thread::sleep_for(milliseconds(10));
    std::ifstream in(pids.str());
    in >> plugin >> child;
  }
  REQUIRE(plugin > 0);
  REQUIRE(child > 0);
  CHECK_FALSE(testing::process_gone(child));
  p.reset();  // the crawl is over
  CHECK(testing::process_gone_within(plugin, kEventually));
  CHECK(testing::process_gone_within(child, kEventually));
}

TEST_CASE("a processors entry is read, every mistake named", "[plugin]") {
  const auto spec = parse_external_processor(
      R"({"name": "lang", "exec": ["python3", "plugins/lang.py"], "urls": "/blog/", "timeout": "5s", "instances": 2})");
  CHECK(spec.name == "lang");
  CHECK(spec.exec == std::vector<std::string>{"python3", "plugins/lang.py"});
  CHECK(spec.urls == "/blog/");
  CHECK(spec.timeout == seconds(5));
  CHECK(spec.instances == 2);
  CHECK(spec.max_answer_bytes == std::size_t{16} << 20);
  CHECK(spec.max_in_flight == 16);

  const auto defaults = parse_external_processor(R"({"name": "x", "exec": "plugins/x"})");
  CHECK(defaults.exec == std::vector<std::string>{"plugins/x"});
  CHECK(defaults.urls.empty());
  CHECK(defaults.timeout == seconds(5));
  CHECK(defaults.instances == 1);

  CHECK(parse_external_processor(R"({"name": "x", "exec": ["x"], "timeout": "500ms"})").timeout == milliseconds(500));
  CHECK(parse_external_processor(R"({"name": "x", "exec": ["x"], "timeout": 250})").timeout == milliseconds(250));
  CHECK(parse_external_processor(R"({"name": "x", "exec": ["x"], "timeout": "2.5s"})").timeout == milliseconds(2500));
  CHECK(parse_external_processor(R"({"name": "x", "exec": ["x"], "instances": "3"})").instances == 3);
  CHECK(parse_external_processor(R"({"name": "x", "exec": ["x"], "max_answer_bytes": "1MiB"})").max_answer_bytes ==
        1048576);
  CHECK(parse_external_processor(R"({"name": "x", "exec": ["x"], "max_in_flight": 4})").max_in_flight == 4);
  CHECK(parse_external_processor(R"({"name": "x", "exec": ["x"], "start_timeout": "1m"})").start_timeout ==
        seconds(60));
  CHECK(defaults.start_timeout == seconds(10));
  CHECK(defaults.max_failures_in_a_row == 5);
  CHECK(defaults.max_items == 1000);
  CHECK(defaults.max_links == 1000);
  const auto capped = parse_external_processor(R"({"name": "x", "exec": ["x"], "max_items": 5, "max_links": "0"})");
  CHECK(capped.max_items == 5);
  CHECK(capped.max_links == 0);
  CHECK(parse_external_processor(R"({"name": "x", "exec": ["x"], "max_failures_in_a_row": 2})").max_failures_in_a_row ==
        2);

  auto error_of = [](const std::string& text) {
    try {
      parse_external_processor(text);
    } catch (const ConfigError& e) {
      return std::string{e.what()};
    }
    return std::string{"no error"};
  };
  CHECK(error_of(R"({"name": "x", "exec": ["x"], "timout": "5s"})") ==
        "processors: x: unknown key 'timout' (known: name, exec, urls, timeout, start_timeout, instances, "
        "max_answer_bytes, max_in_flight, max_failures_in_a_row, max_items, max_links)");
  CHECK(error_of(R"({"exec": ["x"]})") == "processors: an external processor: name: required, a non-empty string");
  CHECK(error_of(R"({"name": "x"})") ==
        "processors: x: exec: required: the program and its arguments, e.g. [python3, plugins/lang.py]");
  CHECK(error_of(R"({"name": "x", "exec": []})") == "processors: x: exec: the program is missing");
  CHECK(error_of(R"({"name": "x", "exec": ["x", 3]})") == "processors: x: exec: every word must be a string, got 3");
  CHECK(error_of(R"({"name": "x", "exec": ["x"], "instances": 0})") == "processors: x: instances: 0 is out of range (1..64)");
  CHECK(error_of(R"({"name": "x", "exec": ["x"], "max_failures_in_a_row": 0})") ==
        "processors: x: max_failures_in_a_row: 0 is out of range (1..1000)");
  CHECK(error_of(R"({"name": "x", "exec": ["x"], "instances": 65})") ==
        "processors: x: instances: 65 is out of range (1..64)");
  CHECK(error_of(R"({"name": "x", "exec": ["x"], "instances": 1.5})") ==
        "processors: x: instances: expected a whole number, got 1.5");
  CHECK(error_of(R"({"name": "x", "exec": ["x"], "timeout": "soon"})") ==
        "processors: x: timeout: expected a duration, got 'soon'");
  CHECK(error_of(R"({"name": "x", "exec": ["x"], "timeout": 0})") ==
        "processors: x: timeout: 0 is out of range (1..3600000)");
  CHECK(error_of(R"({"name": "x", "exec": ["x"], "urls": "("})").rfind(
            "processors: x: urls: invalid regular expression '(': ", 0) == 0);
  CHECK(error_of(R"({"name": "x", "exec": ["x"], "urls": 3})") ==
        "processors: x: urls: expected a regular expression (RE2), got 3");
  CHECK(error_of(R"({"name": "has space", "exec": ["x"]})") ==
        "processors: an external processor: name: 'has space' may hold only letters, digits, '_', '-' and '.'");
  CHECK(error_of(R"({"name": "warc", "exec": ["x"]})") ==
        "processors: an external processor: name: 'warc' is a built-in processor's name");
  CHECK(error_of("[1]") == "processors: an external processor is a mapping (name, exec, urls, timeout, instances)");
  CHECK(error_of("{") == "processors: an external processor is a mapping (name, exec, urls, timeout, instances)");
}

}  // namespace
}  // namespace actorcrawl
