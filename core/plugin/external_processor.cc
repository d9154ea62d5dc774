#include "core/plugin/external_processor.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <re2/re2.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/plugin/bounded_lines.h"
#include "core/plugin/plugin_process.h"
#include "core/plugin/plugin_protocol.h"
#include "core/config/crawl_config.h"
#include "core/web/url.h"

namespace actorcrawl {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Restart backoff: a plugin that fails over and over is started at most
// once per kLongestRestartDelay; one that answers well starts from the
// first delay again.
constexpr milliseconds kFirstRestartDelay{100};
constexpr milliseconds kLongestRestartDelay{30'000};
// A stderr line longer than this is logged cut (the rest dropped).
constexpr std::size_t kMaxStderrLine = 2000;
// Of an answer line over max_answer_bytes, enough to read its leading id.
constexpr std::size_t kKeptOfLongAnswer = 64;
// What a failure's detail quotes of a plugin's words.
constexpr std::size_t kMaxQuoted = 300;
// How long a plugin that closed its stdout is given to exit by itself (so
// its failures name its real exit status) before it is killed, and how
// long its last stderr lines are read after that.
constexpr milliseconds kExitWait{1000};
// How long the destructor lets plugins exit after their stdin closes.
constexpr milliseconds kStopGrace{1000};
// How often the supervisor looks whether a starting instance read its hello.
constexpr milliseconds kHelloPoll{10};

constexpr int kMaxInstances = 64;
constexpr int kMaxInFlight = 1024;
constexpr int kMaxFailuresInARow = 1000;
constexpr std::int64_t kMaxAnswerElements = 1'000'000;
// How often one page is sent: once, and again after each failure of its
// instance that it did not cause, at most this many times in all.
constexpr int kMaxSends = 3;
// The stderr lines (of any instance) a give-up quotes.
constexpr std::size_t kLastStderrLines = 5;
constexpr std::int64_t kMaxTimeoutMs = 3'600'000;
constexpr std::int64_t kMinAnswerBytes = 1024;
constexpr std::int64_t kMaxAnswerBytes = std::int64_t{1} << 30;

std::string quoted_command(const std::vector<std::string>& exec) {
  std::string text;
  for (const auto& word : exec) {
    if (!text.empty())
      text += ' ';
    text += word;
  }
  return "'" + text + "'";
}

std::string ms_text(milliseconds d) { return std::to_string(d.count()) + " ms"; }

milliseconds restart_delay(int failures_in_a_row) {
  milliseconds delay = kFirstRestartDelay;
  for (int i = 0; i < failures_in_a_row && delay < kLongestRestartDelay; ++i)
    delay *= 2;
  return std::min(delay, kLongestRestartDelay);
}

bool is_plugin_name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.';
}

// Why a name is not fit for a processor (its items' kind, its log prefix),
// or "".
std::string name_problem(const std::string& name) {
  if (name.empty())
    return "required, a non-empty string";
  if (name.size() > 64)
    return "at most 64 characters";
  if (!std::all_of(name.begin(), name.end(), is_plugin_name_character))
    return "'" + name + "' may hold only letters, digits, '_', '-' and '.'";
  const auto builtin = ProcessorChain::known_names();
  if (std::find(builtin.begin(), builtin.end(), name) != builtin.end())
    return "'" + name + "' is a built-in processor's name";
  return "";
}

// A whole number given as a JSON number or as a string (YAML scalars may
// come as strings), in [low, high]; `parse_text` reads a string (units).
template <class ParseText>
std::int64_t whole_number(const nlohmann::json& value, const std::string& where, std::int64_t low,
                          std::int64_t high, ParseText parse_text) {
  std::int64_t n = 0;
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(high))
      throw ConfigError(where + ": " + std::to_string(u) + " is out of range (" + std::to_string(low) + ".." +
                        std::to_string(high) + ")");
    n = static_cast<std::int64_t>(u);
  } else if (value.is_number_integer()) {
    n = value.get<std::int64_t>();
  } else if (value.is_string()) {
    try {
      n = parse_text(value.get<std::string>());
    } catch (const ConfigError& e) {
      throw ConfigError(where + ": " + e.what());
    }
  } else {
    throw ConfigError(where + ": expected a whole number, got " + value.dump());
  }
  if (n < low || n > high)
    throw ConfigError(where + ": " + std::to_string(n) + " is out of range (" + std::to_string(low) + ".." +
                      std::to_string(high) + ")");
  return n;
}

std::int64_t plain_integer(const std::string& text) {
  std::size_t used = 0;
  std::int64_t n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
    throw ConfigError("expected a whole number, got '" + text + "'");
  }
  if (used != text.size())
    throw ConfigError("expected a whole number, got '" + text + "'");
  return n;
}

}  // namespace

ExternalProcessorSpec parse_external_processor(const std::string& json_object) {
  const auto value = nlohmann::json::parse(json_object, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object())
    throw ConfigError("processors: an external processor is a mapping (name, exec, urls, timeout, instances)");
  ExternalProcessorSpec spec;
  const auto name = value.find("name");
  if (name == value.end() || !name->is_string())
    throw ConfigError("processors: an external processor: name: required, a non-empty string");
  spec.name = name->get<std::string>();
  if (const std::string problem = name_problem(spec.name); !problem.empty())
    throw ConfigError("processors: an external processor: name: " + problem);
  const std::string who = "processors: " + spec.name + ": ";

  for (const auto& [key, v] : value.items()) {
    const std::string where = who + key;
    if (key == "name") {
      continue;
    } else if (key == "exec") {
      // A list runs as given; a lone string is the program alone (no shell
      // splits it, so a path with spaces stays one word).
      if (v.is_string()) {
        spec.exec = {v.get<std::string>()};
      } else if (v.is_array()) {
        for (const auto& word : v) {
          if (!word.is_string())
            throw ConfigError(where + ": every word must be a string, got " + word.dump());
          spec.exec.push_back(word.get<std::string>());
        }
      } else {
        throw ConfigError(where + ": expected a list (program and arguments), got " + v.dump());
      }
      if (spec.exec.empty() || spec.exec.front().empty())
        throw ConfigError(where + ": the program is missing");
    } else if (key == "urls") {
      if (!v.is_string())
        throw ConfigError(where + ": expected a regular expression (RE2), got " + v.dump());
      spec.urls = v.get<std::string>();
      RE2 pattern(spec.urls, RE2::Quiet);
      if (!pattern.ok())
        throw ConfigError(where + ": invalid regular expression '" + spec.urls + "': " + pattern.error());
    } else if (key == "timeout") {
      spec.timeout = milliseconds{whole_number(v, where, 1, kMaxTimeoutMs, parse_duration_ms)};
    } else if (key == "start_timeout") {
      spec.start_timeout = milliseconds{whole_number(v, where, 1, kMaxTimeoutMs, parse_duration_ms)};
    } else if (key == "instances") {
      spec.instances = static_cast<int>(whole_number(v, where, 1, kMaxInstances, plain_integer));
    } else if (key == "max_answer_bytes") {
      spec.max_answer_bytes =
          static_cast<std::size_t>(whole_number(v, where, kMinAnswerBytes, kMaxAnswerBytes, parse_byte_size));
    } else if (key == "max_in_flight") {
      spec.max_in_flight = static_cast<int>(whole_number(v, where, 1, kMaxInFlight, plain_integer));
    } else if (key == "max_failures_in_a_row") {
      spec.max_failures_in_a_row = static_cast<int>(whole_number(v, where, 1, kMaxFailuresInARow, plain_integer));
    } else if (key == "max_items") {
      spec.max_items = static_cast<std::size_t>(whole_number(v, where, 0, kMaxAnswerElements, plain_integer));
    } else if (key == "max_links") {
      spec.max_links = static_cast<std::size_t>(whole_number(v, where, 0, kMaxAnswerElements, plain_integer));
    } else {
      throw ConfigError(who + "unknown key '" + key +
                        "' (known: name, exec, urls, timeout, start_timeout, instances, max_answer_bytes, "
                        "max_in_flight, max_failures_in_a_row, max_items, max_links)");
    }
  }
  if (spec.exec.empty())
    throw ConfigError(who + "exec: required: the program and its arguments, e.g. [python3, plugins/lang.py]");
  return spec;
}

// A page waiting for its answer. Under mutex_ once handed to an instance.
struct ExternalProcessor::Pending {
  std::uint64_t id = 0;
  bool done = false;
  // Its instance failed with it in flight, and it was not what failed it:
  // the caller sends it again.
  bool resend = false;
  // It was in flight beside others when an instance failed for a reason no
  // page can be told from (an exit): sent again alone, so that if it is
  // the cause, the next failure names it.
  bool alone = false;
  int sends = 0;
  std::vector<std::string> items;
  std::vector<std::string> links;
  std::string reason;  // "" when answered well
  std::string detail;
  std::string cut;     // answered well, but past max_items or max_links: what was left out
};

// One process of an instance, from its start to its end. Fields under
// mutex_ unless said otherwise.
struct ExternalProcessor::Running {
  int instance = 0;
  std::unique_ptr<PluginProcess> process;  // its own thread rules
  int wake_read = -1;                      // readable once retired: the reader stops
  int wake_write = -1;
  std::thread reader;
  Clock::time_point hello_deadline;
  bool writing = false;  // a caller is writing its page line: one at a time
  bool output_closed = false;  // its stdout ended: no page is sent to it any more
  bool retired = false;
  std::string ended;             // why it was retired
  std::string last_stderr_line;  // for start()'s error
  std::map<std::uint64_t, std::shared_ptr<Pending>> in_flight;
  std::uint64_t alone_id = 0;  // a page sent alone: while it is in flight, nothing else is sent

  bool holds_alone() const { return alone_id != 0 && in_flight.count(alone_id) != 0; }

  ~Running() {
    if (reader.joinable() && reader.get_id() != std::this_thread::get_id())
      reader.join();
    if (wake_read >= 0)
      ::close(wake_read);
    if (wake_write >= 0)
      ::close(wake_write);
  }
};

struct ExternalProcessor::Instance {
  int index = 0;
  std::shared_ptr<Running> running;  // null while down
  bool ready = false;                // running read its hello (or had its time): it takes pages
  bool starting = false;             // the supervisor is spawning it
  Clock::time_point restart_at;
  int failures_in_a_row = 0;
};

ExternalProcessor::ExternalProcessor(ExternalProcessorSpec spec, PluginLogSink log)
    : spec_(std::move(spec)), log_(std::move(log)) {
  if (!spec_.urls.empty()) {
    urls_ = std::make_unique<RE2>(spec_.urls, RE2::Quiet);
    if (!urls_->ok())
      throw PluginStartError("plugin '" + spec_.name + "': urls: invalid regular expression '" + spec_.urls +
                             "': " + urls_->error());
  }
  for (int i = 0; i < spec_.instances; ++i) {
    instances_.push_back(std::make_unique<Instance>());
    instances_.back()->index = i;
  }
}

void ExternalProcessor::log(LogLevel level, const std::string& text) const {
  if (text.empty())
    return;
  if (log_)
    log_(level, text);
  else
    log_line(level, text);
}

std::vector<std::string> plugin_helper_dirs() {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return {};
  self[n] = '\0';
  std::string dir{self};
  dir.resize(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/'));
  for (const std::string& candidate : {dir + "/share/actorcrawl/plugins", dir + "/../share/actorcrawl/plugins"}) {
    if (::access((candidate + "/actorcrawl_plugin.py").c_str(), R_OK) != 0)
      continue;
    char resolved[4096];
    if (::realpath(candidate.c_str(), resolved) != nullptr)
      return {std::string{resolved}};
  }
  return {};
}

std::shared_ptr<ExternalProcessor> ExternalProcessor::start(ExternalProcessorSpec spec, PluginLogSink log) {
  if (const std::string problem = name_problem(spec.name); !problem.empty())
    throw PluginStartError("plugin '" + spec.name + "': name: " + problem);
  const std::string who = "plugin '" + spec.name + "'";
  if (spec.exec.empty() || spec.exec.front().empty())
    throw PluginStartError(who + ": exec: the program is missing");
  if (spec.instances < 1 || spec.instances > kMaxInstances)
    throw PluginStartError(who + ": instances: " + std::to_string(spec.instances) + " is out of range (1..64)");
  if (spec.timeout.count() < 1)
    throw PluginStartError(who + ": timeout: must be at least 1 ms");
  if (spec.start_timeout.count() < 1)
    throw PluginStartError(who + ": start_timeout: must be at least 1 ms");
  if (spec.max_in_flight < 1)
    throw PluginStartError(who + ": max_in_flight: must be at least 1");
  if (spec.max_answer_bytes < static_cast<std::size_t>(kMinAnswerBytes))
    throw PluginStartError(who + ": max_answer_bytes: must be at least 1024");
  if (spec.max_failures_in_a_row < 1)
    throw PluginStartError(who + ": max_failures_in_a_row: must be at least 1");

  std::shared_ptr<ExternalProcessor> self(new ExternalProcessor(std::move(spec), std::move(log)));
  const auto& s = self->spec_;
  std::vector<std::shared_ptr<Running>> first;
  for (int i = 0; i < s.instances; ++i) {
    std::shared_ptr<Running> run;
    try {
      run = spawn_running(s, i);
    } catch (const PluginSpawnError& e) {
      // Those already started are stopped by the destructor.
      throw PluginStartError(who + ": cannot start " + quoted_command(s.exec) + ": " + e.what());
    }
    std::lock_guard<std::mutex> lock{self->mutex_};
    self->install(*self->instances_[static_cast<std::size_t>(i)], run);
    first.push_back(std::move(run));
  }
  self->supervisor_ = std::thread(&ExternalProcessor::supervise, self.get());

  // The supervisor marks each ready once it has read its hello, or at its
  // hello deadline; a reader retires one that exits.
  std::unique_lock<std::mutex> lock{self->mutex_};
  self->changed_.wait(lock, [&] {
    for (std::size_t i = 0; i < first.size(); ++i) {
      if (first[i]->retired)
        return true;
      if (!self->instances_[i]->ready)
        return false;
    }
    return true;
  });
  for (const auto& run : first) {
    if (!run->retired)
      continue;
    std::string message = who + ": " + quoted_command(s.exec) + " failed as it started: " + run->ended;
    if (!run->last_stderr_line.empty())
      message += "; its stderr said: " + run->last_stderr_line;
    lock.unlock();
    throw PluginStartError(message);
  }
  // From here on its failures are the crawl's news, not start()'s error.
  self->started_ = true;
  return self;
}

std::shared_ptr<ExternalProcessor::Running> ExternalProcessor::spawn_running(const ExternalProcessorSpec& spec,
                                                                          int index) {
  auto run = std::make_shared<ExternalProcessor::Running>();
  run->instance = index;
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0)
    throw PluginSpawnError(std::string{"cannot make a pipe: "} + std::strerror(errno));
  run->wake_read = wake[0];
  run->wake_write = wake[1];
  run->process = std::make_unique<PluginProcess>(spec.exec, spec.python_path);
  // Into an empty pipe: never waits. A plugin already gone shows as the
  // end of its stdout.
  run->process->write_all(plugin_hello_line(spec.name), Clock::now() + spec.timeout);
  return run;
}

void ExternalProcessor::install(Instance& instance, std::shared_ptr<Running> run) {
  instance.running = run;
  instance.ready = false;
  run->hello_deadline = Clock::now() + spec_.start_timeout;
  run->reader = std::thread(&ExternalProcessor::read_output, this, run);
  supervisor_wake_.notify_all();
}

void ExternalProcessor::fail_page(Pending& pending, const std::string& reason, const std::string& detail) {
  pending.done = true;
  pending.resend = false;
  pending.reason = reason;
  pending.detail = detail;
  pending.cut.clear();
  pending.items.clear();
  pending.links.clear();
}

std::string ExternalProcessor::count_failure(const std::string& detail) {
  if (stopping_ || !gave_up_.empty() || !started_ || interrupt_deadline_)
    return "";
  if (++failures_in_a_row_ < spec_.max_failures_in_a_row)
    return "";
  std::string why = "plugin '" + spec_.name + "' failed " + std::to_string(failures_in_a_row_) +
                    " times in a row with no good answer between (the last time: " + detail + ")";
  if (!last_stderr_lines_.empty()) {
    why += "; its last lines on stderr: ";
    for (std::size_t i = 0; i < last_stderr_lines_.size(); ++i)
      why += (i ? " | " : "") + last_stderr_lines_[i];
  }
  why += ". The crawl stops. Run " + quoted_command(spec_.exec) +
         " by hand with a page line on its stdin (docs/plugins.md, The lines) to see why, then fix it, raise "
         "its max_failures_in_a_row, or take it out of processors; run the crawl again to resume. The pages it "
         "did not process are in the processor_failures table (processor '" +
         spec_.name + "', reason unavailable).";
  gave_up_ = why;
  changed_.notify_all();
  supervisor_wake_.notify_all();
  return why;
}

std::string ExternalProcessor::retire(std::shared_ptr<Running> run, const std::string& reason,
                                      const std::string& detail, std::uint64_t culprit, std::uint64_t innocent) {
  if (run->retired)
    return "";
  run->retired = true;
  run->ended = detail;
  const std::string gave_up = count_failure(detail);
  // Which page failed it: the one named, or the only one that could have.
  std::size_t candidates = 0;
  for (const auto& [id, pending] : run->in_flight)
    candidates += id != innocent ? 1 : 0;
  for (auto& [id, pending] : run->in_flight) {
    Pending& p = *pending;
    const bool to_blame = id == culprit || (culprit == 0 && id != innocent && candidates == 1);
    if (stopping_ || to_blame || p.sends >= kMaxSends) {
      fail_page(p, reason, detail);
    } else if (!given_up_detail().empty()) {
      fail_page(p, "unavailable", given_up_detail());
    } else {
      p.resend = true;
      p.alone = p.alone || (culprit == 0 && id != innocent);
      ++counts_.resent;
    }
  }
  run->in_flight.clear();
  run->process->kill_group();
  const char wake = 'x';
  [[maybe_unused]] const ssize_t ignored = ::write(run->wake_write, &wake, 1);

  Instance& instance = *instances_[static_cast<std::size_t>(run->instance)];
  milliseconds delay{0};
  if (instance.running == run) {
    instance.running.reset();
    instance.ready = false;
    delay = restart_delay(instance.failures_in_a_row);
    ++instance.failures_in_a_row;
    instance.restart_at = Clock::now() + delay;
  }
  retired_.push_back(run);
  supervisor_wake_.notify_all();
  changed_.notify_all();
  if (stopping_ || !started_)
    return "";
  return "plugin " + spec_.name + ": instance " + std::to_string(run->instance + 1) + " (pid " +
         std::to_string(run->process->pid()) + ") " + detail +
         (given_up_detail().empty() ? "; restarting it in " + ms_text(delay) : "; not restarting it: the plugin gave up");
}

std::string ExternalProcessor::given_up_detail() const {
  if (gave_up_.empty())
    return "";
  return "the plugin gave up after " + std::to_string(spec_.max_failures_in_a_row) + " failures in a row";
}

void ExternalProcessor::read_output(std::shared_ptr<Running> run) {
  PluginProcess& process = *run->process;
  BoundedLineSplitter answers(spec_.max_answer_bytes, kKeptOfLongAnswer);
  BoundedLineSplitter diagnostics(kMaxStderrLine, kMaxStderrLine);
  const BoundedLineSplitter::LineHandler on_answer = [this, &run](BoundedLineSplitter::Line line) {
    take_answer_line(run, std::move(line.text), line.too_long, line.length);
  };
  const BoundedLineSplitter::LineHandler on_stderr = [this, &run](BoundedLineSplitter::Line line) {
    if (!line.text.empty() && line.text.back() == '\r')
      line.text.pop_back();
    std::string text = bounded_plugin_text(line.text, kMaxStderrLine);
    if (line.too_long && text.size() >= 3 && text.compare(text.size() - 3, 3, "...") != 0)
      text += "...";
    if (text.empty())
      return;
    {
      std::lock_guard<std::mutex> lock{mutex_};
      run->last_stderr_line = text;
      if (last_stderr_lines_.size() == kLastStderrLines)
        last_stderr_lines_.erase(last_stderr_lines_.begin());
      last_stderr_lines_.push_back(bounded_plugin_text(text, kMaxQuoted));
    }
    log_plugin_line("plugin " + spec_.name + ": " + text);
  };

  std::vector<char> buffer(64 * 1024);
  // Reads what one descriptor has; false at its end (or an error).
  auto read_into = [&buffer](int fd, BoundedLineSplitter& lines, const BoundedLineSplitter::LineHandler& on_line) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) {
      lines.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)), on_line);
      return true;
    }
    return n < 0 && (errno == EINTR || errno == EAGAIN);
  };

  bool stdout_open = true;
  bool stderr_open = true;
  bool stopped = false;
  while (stdout_open && !stopped) {
    pollfd fds[3] = {{process.stdout_fd(), POLLIN, 0},
                     {stderr_open ? process.stderr_fd() : -1, POLLIN, 0},
                     {run->wake_read, POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0)
      continue;  // EINTR
    if (fds[2].revents != 0) {
      stopped = true;
      break;
    }
    if (fds[1].revents != 0)
      stderr_open = read_into(process.stderr_fd(), diagnostics, on_stderr);
    if (fds[0].revents != 0)
      stdout_open = read_into(process.stdout_fd(), answers, on_answer);
  }
  if (!stopped) {
    // Its stdout closed: an answer written without a final newline still
    // counts. Then the plugin is given a moment to exit by itself, while
    // no page is sent to it.
    answers.finish(on_answer);
    std::lock_guard<std::mutex> lock{mutex_};
    run->output_closed = true;
  }

  // Its last stderr lines (a traceback, often) come before the line that
  // says it ended; read until the pipe's end, a bounded while.
  const auto stderr_deadline = Clock::now() + kExitWait;
  while (stderr_open && Clock::now() < stderr_deadline) {
    pollfd p{process.stderr_fd(), POLLIN, 0};
    if (::poll(&p, 1, 50) > 0)
      stderr_open = read_into(process.stderr_fd(), diagnostics, on_stderr);
    else if (!stopped && process.try_reap())
      break;  // gone, and nothing more to read
  }
  diagnostics.finish(on_stderr);

  std::string note;
  if (!stopped) {
    const bool exited = process.reaped_by(Clock::now() + kExitWait);
    std::lock_guard<std::mutex> lock{mutex_};
    note = retire(run, "crashed", exited ? process.exit_description() : "closed its stdout");
  }
  log(LogLevel::warn, note);
  // Killed by retire() if it was still running.
  process.reap();
}

void ExternalProcessor::take_output_line(const std::string& line) {
  std::string text = line;
  if (!text.empty() && text.back() == '\r')
    text.pop_back();
  {
    std::lock_guard<std::mutex> lock{mutex_};
    ++counts_.output_lines;
  }
  if (!text.empty())
    log_plugin_line("plugin " + spec_.name + " (stdout): " + bounded_plugin_text(text, kMaxStderrLine));
}

void ExternalProcessor::log_plugin_line(const std::string& line) {
  std::uint64_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock{mutex_};
    // A bucket of kLogBurst lines, refilled at kLogLinesPerSecond.
    const auto now = Clock::now();
    const double refill = std::chrono::duration<double>(now - log_bucket_at_).count() * kLogLinesPerSecond;
    log_bucket_ = std::min<double>(kLogBurst, log_bucket_ + refill);
    log_bucket_at_ = now;
    if (log_bucket_ < 1) {
      ++lines_not_logged_;
      ++counts_.lines_not_logged;
      return;
    }
    log_bucket_ -= 1;
    dropped = lines_not_logged_;
    lines_not_logged_ = 0;
  }
  if (dropped > 0)
    log(LogLevel::warn, "plugin " + spec_.name + ": " + std::to_string(dropped) +
                          " lines of its output were not logged (more than " + std::to_string(kLogLinesPerSecond) +
                          " a second)");
  log(LogLevel::info, line);
}

void ExternalProcessor::take_answer_line(const std::shared_ptr<Running>& run, std::string line, bool too_long,
                                         std::size_t length) {
  std::string note;
  if (too_long) {
    const auto id = leading_answer_id(line);
    const std::string size_text = "an answer line of " + std::to_string(length) +
                                  " bytes, over max_answer_bytes (" + std::to_string(spec_.max_answer_bytes) + ")";
    std::lock_guard<std::mutex> lock{mutex_};
    if (run->retired)
      return;
    const auto found = id ? run->in_flight.find(*id) : run->in_flight.end();
    if (found != run->in_flight.end()) {
      // The stream is still in step: only this page fails.
      fail_page(*found->second, "too_large", size_text);
      run->in_flight.erase(found);
      changed_.notify_all();
      return;
    }
    // An answer, by its size, for a page it does not name: which one is
    // not known, so the pages in flight go again, each alone.
    note = retire(run, "too_large", "wrote " + size_text + ", naming no page it was sent");
  } else {
    PluginAnswer answer = read_plugin_answer(line, spec_.max_items, spec_.max_links);
    if (!answer.id) {
      // No answer (not JSON, or no integer id): the plugin's own output,
      // such as a print() before its loop. Logged, never fatal.
      take_output_line(line);
      return;
    }
    std::lock_guard<std::mutex> lock{mutex_};
    if (run->retired)
      return;
    if (const auto found = run->in_flight.find(*answer.id); found == run->in_flight.end()) {
      note = retire(run, "unknown_id",
                    "answered id " + std::to_string(*answer.id) + ", which it was not sent or had answered already");
    } else {
      Pending& pending = *found->second;
      run->in_flight.erase(found);
      if (!answer.problem.empty()) {
        fail_page(pending, "bad_answer", answer.problem);
      } else if (answer.error) {
        fail_page(pending, "plugin_error", bounded_plugin_text(*answer.error, kMaxQuoted));
      } else {
        pending.done = true;
        if (answer.items_total > answer.items.size() || answer.links_total > answer.links.size())
          pending.cut = "answered " + std::to_string(answer.items_total) + " items and " +
                        std::to_string(answer.links_total) + " links; kept the first " +
                        std::to_string(answer.items.size()) + " and " + std::to_string(answer.links.size()) +
                        " (max_items " + std::to_string(spec_.max_items) + ", max_links " +
                        std::to_string(spec_.max_links) + ")";
        pending.items = std::move(answer.items);
        pending.links = std::move(answer.links);
      }
      // It reads and answers: its next failure starts the backoff afresh,
      // and no crash loop is under way.
      instances_[static_cast<std::size_t>(run->instance)]->failures_in_a_row = 0;
      failures_in_a_row_ = 0;
      changed_.notify_all();
    }
  }
  log(LogLevel::warn, note);
}

void ExternalProcessor::supervise() {
  std::vector<std::pair<LogLevel, std::string>> notes;
  bool gave_up_told = false;
  std::unique_lock<std::mutex> lock{mutex_};
  for (;;) {
    if (!gave_up_.empty() && !gave_up_told) {
      gave_up_told = true;
      notes.emplace_back(LogLevel::error, gave_up_);
    }
    if (!retired_.empty() || !notes.empty()) {
      auto ended = std::move(retired_);
      retired_.clear();
      auto to_log = std::move(notes);
      notes.clear();
      lock.unlock();
      join_readers(ended);
      for (const auto& [level, text] : to_log)
        log(level, text);
      lock.lock();
      continue;
    }
    if (stopping_)
      return;
    const auto now = Clock::now();
    auto wake = now + std::chrono::hours{1};
    for (auto& instance_ptr : instances_) {
      Instance& instance = *instance_ptr;
      if (instance.running && !instance.ready) {
        Running& run = *instance.running;
        if (run.process->stdin_drained()) {
          instance.ready = true;
          changed_.notify_all();
        } else if (now >= run.hello_deadline) {
          instance.ready = true;
          changed_.notify_all();
          notes.emplace_back(LogLevel::warn, "plugin " + spec_.name + ": instance " +
                                                 std::to_string(instance.index + 1) + " has not read its hello in " +
                                                 ms_text(spec_.start_timeout) + "; sending it pages anyway");
        } else {
          wake = std::min(wake, now + kHelloPoll);
        }
      } else if (!instance.running && !instance.starting && gave_up_.empty()) {
        if (instance.restart_at > now) {
          wake = std::min(wake, instance.restart_at);
          continue;
        }
        instance.starting = true;
        lock.unlock();
        std::shared_ptr<Running> run;
        std::string failure;
        try {
          run = spawn_running(spec_, instance.index);
        } catch (const PluginSpawnError& e) {
          failure = e.what();
        }
        lock.lock();
        instance.starting = false;
        if (stopping_)
          return;  // `run`, not started, is killed and reaped as it goes
        if (run) {
          ++counts_.restarts;
          install(instance, std::move(run));
          notes.emplace_back(LogLevel::info, "plugin " + spec_.name + ": instance " +
                                                 std::to_string(instance.index + 1) + " restarted (pid " +
                                                 std::to_string(instance.running->process->pid()) + ")");
        } else {
          const milliseconds delay = restart_delay(instance.failures_in_a_row);
          ++instance.failures_in_a_row;
          instance.restart_at = Clock::now() + delay;
          const std::string why = quoted_command(spec_.exec) + ": " + failure;
          count_failure("could not be started again (" + why + ")");
          notes.emplace_back(LogLevel::warn, "plugin " + spec_.name + ": cannot restart instance " +
                                                 std::to_string(instance.index + 1) + " (" + why + ")" +
                                                 (gave_up_.empty() ? "; trying again in " + ms_text(delay) : ""));
        }
        wake = Clock::now();  // look again at once
      }
    }
    if (!notes.empty() || !retired_.empty() || (!gave_up_.empty() && !gave_up_told))
      continue;
    supervisor_wake_.wait_until(lock, wake);
  }
}

ExternalProcessor::~ExternalProcessor() {
  {
    std::lock_guard<std::mutex> lock{mutex_};
    stopping_ = true;
  }
  supervisor_wake_.notify_all();
  changed_.notify_all();
  if (supervisor_.joinable())
    supervisor_.join();

  // End of file on stdin is a plugin's cue to exit; its reader then sees
  // its stdout end and retires it.
  std::vector<std::shared_ptr<Running>> live;
  {
    std::lock_guard<std::mutex> lock{mutex_};
    for (auto& instance : instances_)
      if (instance->running)
        live.push_back(instance->running);
  }
  std::unique_lock<std::mutex> lock{mutex_};
  for (auto& run : live) {
    // No caller is left to write (they hold the processor), but a line
    // is never cut by the close.
    changed_.wait(lock, [&run] { return !run->writing; });
    run->process->close_stdin();
  }
  changed_.wait_until(lock, Clock::now() + kStopGrace, [this] {
    return std::none_of(instances_.begin(), instances_.end(), [](const auto& i) { return i->running != nullptr; });
  });
  for (auto& instance : instances_)
    if (instance->running)
      retire(instance->running, "unavailable", "the processor stopped");
  auto ended = std::move(retired_);
  retired_.clear();
  lock.unlock();
  join_readers(ended);
}

void ExternalProcessor::join_readers(std::vector<std::shared_ptr<Running>>& ended) {
  for (auto& run : ended)
    if (run->reader.joinable())
      run->reader.join();
  ended.clear();  // each process reaped and its pipes closed here
}

void ExternalProcessor::interrupt() {
  {
    std::lock_guard<std::mutex> lock{mutex_};
    if (!interrupt_deadline_)
      interrupt_deadline_ = Clock::now() + kInterruptGrace;
  }
  // Woken, each wait takes the grace's end as its deadline (bounded()),
  // so a page held by a hung plugin fails then, not at its own timeout.
  changed_.notify_all();
}

ExternalProcessor::Clock::time_point ExternalProcessor::bounded(Clock::time_point deadline) const {
  return interrupt_deadline_ ? std::min(deadline, *interrupt_deadline_) : deadline;
}

bool ExternalProcessor::past_interrupt_grace() const {
  return interrupt_deadline_ && Clock::now() >= *interrupt_deadline_;
}

bool ExternalProcessor::takes(const FetchedPage& page) const {
  return !urls_ || RE2::PartialMatch(page.final_url, *urls_);
}

std::string ExternalProcessor::failed_for_good() const {
  std::lock_guard<std::mutex> lock{mutex_};
  return gave_up_;
}

std::shared_ptr<ExternalProcessor::Running> ExternalProcessor::instance_for(const std::shared_ptr<Pending>& pending,
                                                                          std::unique_lock<std::mutex>& lock) {
  const auto start = Clock::now();
  // With an instance up but full, a slot must come within `timeout`; with
  // none up (restarting), or the instances taken by pages sent alone, an
  // instance within what a restart and its start may take.
  const auto long_deadline = start + kLongestRestartDelay + spec_.start_timeout + 2 * spec_.timeout;
  std::optional<Clock::time_point> slot_deadline;
  const bool alone = pending->alone;
  if (alone)
    ++suspects_waiting_;
  std::shared_ptr<Running> chosen;
  const std::size_t n = instances_.size();
  for (;;) {
    if (!gave_up_.empty()) {
      fail_page(*pending, "unavailable", given_up_detail());
      break;
    }
    if (stopping_) {
      fail_page(*pending, "unavailable", "the processor stopped");
      break;
    }
    if (past_interrupt_grace()) {
      fail_page(*pending, "interrupted", "the crawl is stopping: not given to the plugin");
      break;
    }
    Instance* best = nullptr;
    bool any_ready = false;
    bool alone_in_the_way = alone || suspects_waiting_ > 0;
    for (std::size_t k = 0; k < n; ++k) {
      Instance& instance = *instances_[(next_instance_ + k) % n];
      if (!instance.running || !instance.ready || instance.running->output_closed)
        continue;
      any_ready = true;
      const Running& run = *instance.running;
      if (run.holds_alone()) {
        alone_in_the_way = true;
        continue;
      }
      const std::size_t load = run.in_flight.size();
      // A page sent alone goes to an idle instance; the others wait while
      // one waits for that.
      if (alone ? load != 0 : (suspects_waiting_ > 0 || load >= static_cast<std::size_t>(spec_.max_in_flight)))
        continue;
      if (best == nullptr || load < best->running->in_flight.size())
        best = &instance;
    }
    if (best != nullptr) {
      next_instance_ = (static_cast<std::size_t>(best->index) + 1) % n;
      chosen = best->running;
      chosen->in_flight.emplace(pending->id, pending);
      if (alone)
        chosen->alone_id = pending->id;
      break;
    }
    const auto now = Clock::now();
    if (any_ready && !alone_in_the_way && !slot_deadline)
      slot_deadline = now + spec_.timeout;
    const bool slot_bound = any_ready && !alone_in_the_way;
    const auto deadline = slot_bound ? *slot_deadline : long_deadline;
    if (now >= deadline && !past_interrupt_grace()) {
      fail_page(*pending, "unavailable",
                slot_bound ? "every instance had " + std::to_string(spec_.max_in_flight) + " pages in flight for " +
                               ms_text(spec_.timeout)
                : any_ready ? "no instance was free for a page sent again alone in " +
                                ms_text(std::chrono::duration_cast<milliseconds>(long_deadline - start))
                            : "no instance of the plugin came up in " +
                                ms_text(std::chrono::duration_cast<milliseconds>(long_deadline - start)));
      break;
    }
    changed_.wait_until(lock, bounded(deadline));
  }
  if (alone) {
    --suspects_waiting_;
    changed_.notify_all();
  }
  return chosen;
}

std::string ExternalProcessor::send_and_wait(const std::shared_ptr<Pending>& pending,
                                             const std::shared_ptr<Running>& run, const std::string& line,
                                             std::unique_lock<std::mutex>& lock) {
  Pending& p = *pending;
  ++p.sends;
  const auto deadline = Clock::now() + spec_.timeout;
  const auto settled = [&p] { return p.done || p.resend; };
  auto written = PluginProcess::WriteResult::deadline;
  // Lines must not interleave: one writer per process. The wait for the
  // pen counts against this page's deadline. Each wait ends early at the
  // end of an interrupt's grace (interrupt() wakes them).
  const auto wait_for = [&](const auto& done) {
    while (!done() && Clock::now() < bounded(deadline))
      changed_.wait_until(lock, bounded(deadline));
    return done();
  };
  if (wait_for([&] { return !run->writing || settled(); }) && !settled()) {
    run->writing = true;
    lock.unlock();
    written = run->process->write_all(line, deadline);
    lock.lock();
    run->writing = false;
    changed_.notify_all();
  }
  if (written == PluginProcess::WriteResult::written)
    wait_for(settled);
  if (settled())
    return "";
  const std::string page_id = std::to_string(p.id);
  if (past_interrupt_grace()) {
    // The crawl stopped and the plugin did not answer in the grace: the
    // page is not processed, the instance goes (no restart is wanted).
    run->in_flight.erase(p.id);
    fail_page(p, "interrupted",
              "the crawl stopped; the plugin had not answered " + ms_text(kInterruptGrace) + " later");
    return retire(run, "interrupted",
                  "was killed: the crawl is stopping and it had not answered page " + page_id + " " +
                    ms_text(kInterruptGrace) + " after",
                  p.id);
  }
  if (written == PluginProcess::WriteResult::closed) {
    // It closed its stdin, so it never read this page: not what failed it.
    // A plugin that exits closes its stdin on the way out, and its exit
    // status is what says why: wait for it a bounded moment (the reader of
    // its stdout may tell first; then this retire() is a no-op).
    lock.unlock();
    const bool exited = run->process->reaped_by(Clock::now() + kExitWait);
    lock.lock();
    return retire(run, "crashed", exited ? run->process->exit_description() : "closed its stdin", 0, p.id);
  }
  // This page is what it hung on.
  run->in_flight.erase(p.id);
  if (written == PluginProcess::WriteResult::deadline) {
    fail_page(p, "timeout", "could not write the page in " + ms_text(spec_.timeout) + ": the plugin does not read its stdin");
    return retire(run, "timeout", "did not read page " + page_id + " in " + ms_text(spec_.timeout) + " (it was restarted)",
                  p.id);
  }
  fail_page(p, "timeout", "no answer in " + ms_text(spec_.timeout));
  return retire(run, "timeout", "had no answer to page " + page_id + " in " + ms_text(spec_.timeout) + " (it was restarted)",
                p.id);
}

void ExternalProcessor::process(const FetchedPage& page, PageAnalysis& analysis) {
  if (!takes(page))
    return;
  auto pending = std::make_shared<Pending>();
  {
    std::lock_guard<std::mutex> lock{mutex_};
    pending->id = next_id_++;
    ++counts_.pages;
  }
  const std::string line = plugin_page_line(pending->id, page);

  {
    std::unique_lock<std::mutex> lock{mutex_};
    for (;;) {
      const std::shared_ptr<Running> run = instance_for(pending, lock);
      if (!run)
        break;  // failed: unavailable
      const std::string note = send_and_wait(pending, run, line, lock);
      if (!note.empty()) {
        lock.unlock();
        log(LogLevel::warn, note);
        lock.lock();
      }
      if (!pending->resend)
        break;
      pending->resend = false;  // its instance failed: sent again
    }
    const std::string& r = pending->reason.empty() && !pending->cut.empty() ? std::string{"too_large"} : pending->reason;
    auto& c = counts_;
    (r.empty()                ? c.ok
     : r == "crashed"         ? c.crashed
     : r == "timeout"         ? c.timeout
     : r == "bad_answer"      ? c.bad_answer
     : r == "too_large"       ? c.too_large
     : r == "unknown_id"      ? c.unknown_id
     : r == "plugin_error"    ? c.plugin_error
     : r == "interrupted"     ? c.interrupted
                              : c.unavailable)++;
  }
  if (!pending->reason.empty()) {
    analysis.processor_failures.push_back(ProcessorFailure{spec_.name, pending->reason, pending->detail});
    return;
  }
  if (!pending->cut.empty())
    analysis.processor_failures.push_back(ProcessorFailure{spec_.name, "too_large", pending->cut});
  for (auto& item : pending->items)
    analysis.items.push_back(ExtractedItem{spec_.name, std::move(item)});
  if (pending->links.empty())
    return;
  // Absolute from here on, whatever base the page declares: the plugin
  // was told final_url, so that is what its relative links mean.
  const auto base = Url::parse(page.final_url);
  if (!base)
    return;
  for (const auto& link : pending->links)
    if (auto url = base->resolve(link))
      analysis.links.push_back(HtmlLink{url->str(), false});
}

ExternalProcessor::Counts ExternalProcessor::counts() const {
  std::lock_guard<std::mutex> lock{mutex_};
  return counts_;
}

}  // namespace actorcrawl
