#include "core/report/console_log.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>

namespace actorcrawl {

namespace {

std::mutex mutex;
bool progress_visible = false;
std::atomic<bool> quiet{false};

const char* prefix(LogLevel level) {
  switch (level) {
    case LogLevel::info:
    case LogLevel::notice: return "[INFO] ";
    case LogLevel::warn: return "[WARN] ";
    case LogLevel::error: return "[ERROR] ";
  }
  return "";
}

void clear_progress_locked() {
  if (progress_visible) {
    std::fputs("\r\x1b[2K", stderr);
    progress_visible = false;
  }
}

}  // namespace

bool stderr_is_terminal() {
  static const bool tty = isatty(STDERR_FILENO) == 1;
  return tty;
}

void set_quiet(bool q) { quiet = q; }

void log_line(LogLevel level, const std::string& text) {
  if (level == LogLevel::info && quiet)
    return;
  std::lock_guard<std::mutex> lock{mutex};
  clear_progress_locked();
  std::fprintf(stderr, "%s%s\n", prefix(level), text.c_str());
}

void show_progress(const std::string& text) {
  if (!stderr_is_terminal()) {
    log_line(LogLevel::info, text);
    return;
  }
  std::lock_guard<std::mutex> lock{mutex};
  std::fprintf(stderr, "\r\x1b[2K%s", text.c_str());
  std::fflush(stderr);
  progress_visible = true;
}

void end_progress() {
  std::lock_guard<std::mutex> lock{mutex};
  if (progress_visible) {
    std::fputc('\n', stderr);
    progress_visible = false;
  }
}

std::string progress_text(const ProgressSnapshot& p, double pages_per_second, bool stopping, CrawlProfile profile) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "queue %lld | in flight %lld | pages %lld (%.1f/s) | errors %lld | %s %lld%s",
                static_cast<long long>(p.queued), static_cast<long long>(p.in_flight),
                static_cast<long long>(p.fetched), pages_per_second, static_cast<long long>(p.failed),
                profile == CrawlProfile::domains ? "nodes" : "seen", static_cast<long long>(p.seen),
                stopping ? " | stopping" : "");
  return buf;
}

}  // namespace actorcrawl
