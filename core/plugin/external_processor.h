// External processors: page processors written in any language, run as
// long-lived child processes that read pages and write answers as JSON
// Lines on their stdin and stdout (the protocol: docs/plugins.md,
// its lines: plugin_protocol.h). One entry of the `processors` list:
//
//   {name: lang, exec: [python3, plugins/lang.py], urls: '', timeout: 5s, instances: 2}
//
// A plugin's answer adds items (ExtractedItem, kind = its name) and links
// (resolved against the page's final URL, then selected like any link) to
// the page's analysis. Whatever goes wrong with a plugin (it exits, hangs,
// answers garbage) costs the page it was working on a ProcessorFailure,
// never the crawl: the instance is killed if need be and started again
// with backoff, and the pages that were with it besides (sent, not
// answered) are sent again. While no instance runs, pages wait for one
// (their callers block: backpressure); a plugin that fails
// max_failures_in_a_row times with no good answer between gives up: its
// pages fail `unavailable`, and failed_for_good() says why, so the crawl
// stops. Lines on its stdout that are no answer are logged as its output.
//
// Threads: each running instance has one thread reading its stdout and
// stderr; one supervisor thread per processor restarts instances and joins
// the threads of those that ended. Callers write pages themselves and wait
// for their answer.
//
// Bounds: at most `max_in_flight` pages per instance wait for an answer; a
// caller beyond that waits for a free slot (at most `timeout`), so a slow
// plugin holds its callers back instead of queueing pages. An answer line
// is held up to `max_answer_bytes`, a stderr line up to 2,000 bytes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/page/page_processor.h"
#include "core/report/console_log.h"

namespace re2 {
class RE2;
}

namespace actorcrawl {

struct ExternalProcessorSpec {
  std::string name;               // the processor's name in the chain and its items' kind
  std::vector<std::string> exec;  // the program and its arguments, no shell
  std::string urls;               // RE2 searched in final_url; "" = every page
  std::chrono::milliseconds timeout{5000};  // per page, from when it is written
  // How long a starting instance may take to read its hello (an
  // interpreter starting, a model loading) before it is sent pages anyway.
  std::chrono::milliseconds start_timeout{10000};
  int instances = 1;              // processes run side by side
  std::size_t max_answer_bytes = std::size_t{16} << 20;  // one answer line
  int max_in_flight = 16;         // pages one instance holds unanswered
  // Failures (an exit, a hang, a stream out of step, a restart that fails)
  // in a row, with no good answer between, after which the plugin gives up.
  int max_failures_in_a_row = 5;
  // Items and links one answer may give: those past them are not read
  // (links not even resolved), and the page records `too_large`.
  std::size_t max_items = 1000;
  std::size_t max_links = 1000;
  // Directories put first on the plugin's PYTHONPATH (where the helper
  // module lives: plugin_helper_dirs()), so a plugin imports it from
  // anywhere.
  std::vector<std::string> python_path;
};

// Where the Python helper module (actorcrawl_plugin.py) is, as seen from
// the running program: share/actorcrawl/plugins beside the binary (a build
// tree), or ../share/actorcrawl/plugins (installed); the first that holds
// it, or none.
std::vector<std::string> plugin_helper_dirs();

// Reads one `processors` entry given as a JSON object's text. Keys: name
// and exec (required), urls, timeout and start_timeout ("5s", "500ms" or a
// number of ms), instances (1..64), max_answer_bytes ("16MiB" or a number), max_in_flight
// (1..1024), max_failures_in_a_row (1..1000), max_items and max_links
// (0..1000000). Numbers may also come as strings of digits (YAML scalars).
// Throws ConfigError naming the processor and the key: an unknown key, a
// missing or mistyped value, a value out of range, an invalid RE2 pattern.
ExternalProcessorSpec parse_external_processor(const std::string& json_object);

// A plugin that cannot run: its program is not found or not executable,
// it exits before reading its hello, the spec is invalid. Names the plugin.
class PluginStartError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where the plugins' stderr lines and the crawler's lines about its
// plugins go: log_line unless a test or an embedder says otherwise.
using PluginLogSink = std::function<void(LogLevel, const std::string&)>;

class ExternalProcessor final : public PageProcessor {
 public:
  // Starts every instance and waits, at most `start_timeout`, for each to
  // read its hello; throws PluginStartError when one cannot start or exits
  // meanwhile (with its exit status and last stderr line). An instance
  // that is still silent then is kept: a slow starter, which its pages'
  // timeouts will judge.
  static std::shared_ptr<ExternalProcessor> start(ExternalProcessorSpec spec, PluginLogSink log = {});

  // Closes every instance's stdin, gives them a second to exit, then kills
  // what is left and reaps everything.
  ~ExternalProcessor() override;
  ExternalProcessor(const ExternalProcessor&) = delete;
  ExternalProcessor& operator=(const ExternalProcessor&) = delete;

  const char* name() const override { return spec_.name.c_str(); }
  // A page line carries the response's headers (plugin_headers_json).
  bool reads_response_head() const override { return true; }
  // The pages whose final URL `urls` matches.
  bool takes(const FetchedPage& page) const override;
  // Sends the page to an instance when `urls` matches its final URL, and
  // blocks until the answer, a failure, or the timeout: a free slot for
  // `timeout`, then `timeout` for the answer; with every instance down, an
  // instance back (at most the longest restart delay plus start_timeout).
  // A page that was with an instance when it failed, besides the one that
  // failed it, is sent again. Safe from many threads.
  void process(const FetchedPage& page, PageAnalysis& analysis) override;
  std::string failed_for_good() const override;
  // The crawl is stopping: pages with the plugin get kInterruptGrace to
  // be answered; then they fail `interrupted` and the instance holding
  // them is killed (and says so). Pages given after the grace fail at once.
  void interrupt() override;
  static constexpr std::chrono::milliseconds kInterruptGrace{1000};
  // The plugin's own lines (stderr, stdout lines that are no answer) go to
  // the log at most this many a second on average, with bursts of
  // kLogBurst; what is left out is counted (Counts::lines_not_logged) and
  // said with the next line logged.
  static constexpr int kLogLinesPerSecond = 20;
  static constexpr int kLogBurst = 200;

  // For metrics.log: pages sent (those `urls` matched), pages answered
  // well, pages failed by reason, and instance restarts.
  struct Counts {
    std::uint64_t pages = 0;
    std::uint64_t ok = 0;
    std::uint64_t crashed = 0;       // the instance exited, or closed its stdin
    std::uint64_t timeout = 0;       // no answer (or the page not written) in time
    std::uint64_t bad_answer = 0;    // the answer line is not a valid answer
    std::uint64_t too_large = 0;     // the answer line is over max_answer_bytes
    std::uint64_t unknown_id = 0;    // the instance answered an id it was not asked
    std::uint64_t plugin_error = 0;  // {"id", "error"}
    std::uint64_t unavailable = 0;   // every instance busy for `timeout`, or the plugin gave up
    std::uint64_t interrupted = 0;   // the crawl stopped before the page was answered
    std::uint64_t restarts = 0;
    std::uint64_t resent = 0;        // pages sent again after their instance failed
    std::uint64_t output_lines = 0;  // stdout lines that were no answer: logged as output
    std::uint64_t lines_not_logged = 0;  // stderr and output lines past the log's rate
  };
  Counts counts() const;

  const ExternalProcessorSpec& spec() const { return spec_; }

 private:
  struct Running;
  struct Instance;
  struct Pending;
  using Clock = std::chrono::steady_clock;

  ExternalProcessor(ExternalProcessorSpec spec, PluginLogSink log);
  // Starts one process of the program and writes its hello. Throws
  // PluginSpawnError.
  static std::shared_ptr<Running> spawn_running(const ExternalProcessorSpec& spec, int index);

  // All under mutex_. retire() takes its own reference: it drops the
  // instance's, which may be the one a caller passed. The page `culprit`
  // (an id; 0: none known) fails with `reason`; so does the one page in
  // flight when no culprit is known. The others are sent again, those of an
  // unknown culprit alone ("suspects") so that the next failure names its
  // page; `innocent` (an id, or 0) is sent again as it was.
  std::string retire(std::shared_ptr<Running> run, const std::string& reason, const std::string& detail,
                     std::uint64_t culprit = 0, std::uint64_t innocent = 0);
  void install(Instance& instance, std::shared_ptr<Running> run);
  void fail_page(Pending& pending, const std::string& reason, const std::string& detail);
  // An instance failed (or could not start): counts towards
  // max_failures_in_a_row, and gives up there. Returns a note to log.
  std::string count_failure(const std::string& detail);
  // An instance that takes `pending` now (registered in its in_flight),
  // waiting for one as long as the bounds allow; nullptr once the page has
  // failed (unavailable).
  std::shared_ptr<Running> instance_for(const std::shared_ptr<Pending>& pending, std::unique_lock<std::mutex>& lock);
  // Sends `line` for `pending` to `run` and waits for its answer, a
  // failure, or a resend; the note to log.
  std::string send_and_wait(const std::shared_ptr<Pending>& pending, const std::shared_ptr<Running>& run,
                            const std::string& line, std::unique_lock<std::mutex>& lock);
  // A stdout line that is no answer: logged as the plugin's output.
  void take_output_line(const std::string& line);
  // A line of the plugin's own (stderr, output) for the log, at most
  // kLogLinesPerSecond on average with bursts of kLogBurst: a plugin that
  // writes megabytes of stderr does not flood the crawler's log; what was
  // left out is counted and said.
  void log_plugin_line(const std::string& line);
  // What a page that could not be sent because the plugin gave up is told.
  std::string given_up_detail() const;
  // `deadline`, or the end of the interrupt's grace if that comes first.
  Clock::time_point bounded(Clock::time_point deadline) const;
  bool past_interrupt_grace() const;

  void read_output(std::shared_ptr<Running> run);
  void take_answer_line(const std::shared_ptr<Running>& run, std::string line, bool too_long, std::size_t length);
  void supervise();
  // Waits for the reader threads of ended processes; outside mutex_.
  static void join_readers(std::vector<std::shared_ptr<Running>>& ended);
  void log(LogLevel level, const std::string& text) const;

  ExternalProcessorSpec spec_;
  PluginLogSink log_;
  std::unique_ptr<re2::RE2> urls_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;     // an answer, a failure, a free slot, an instance up or down
  std::condition_variable supervisor_wake_;
  std::vector<std::unique_ptr<Instance>> instances_;
  std::vector<std::shared_ptr<Running>> retired_;  // ended; their threads to join
  std::uint64_t next_id_ = 1;
  std::size_t next_instance_ = 0;  // where the search for a free slot starts
  bool stopping_ = false;
  bool started_ = false;          // start() returned: failures are news for the log
  std::optional<Clock::time_point> interrupt_deadline_;  // set by interrupt(): the grace's end
  int failures_in_a_row_ = 0;     // of any instance, since the last good answer
  std::string gave_up_;           // why, once it has given up (failed_for_good)
  int suspects_waiting_ = 0;      // callers of pages to send alone, waiting for an idle instance
  std::vector<std::string> last_stderr_lines_;  // the last few, of any instance
  double log_bucket_ = kLogBurst;               // log_plugin_line's allowance
  Clock::time_point log_bucket_at_ = Clock::now();
  std::uint64_t lines_not_logged_ = 0;          // since the last line logged
  Counts counts_;
  std::thread supervisor_;
};

}  // namespace actorcrawl
