// Lines for the person running the crawl, on stderr. When stderr is a
// terminal a live progress line sits at the bottom; a log line first clears
// it, so the two never garble each other. Safe from any thread.
#pragma once

#include <string>

#include "core/crawl/crawl_events.h"
#include "core/crawl/crawl_profile.h"

namespace actorcrawl {

// notice: an info line that --quiet keeps (addresses others must read).
enum class LogLevel { info, notice, warn, error };

void log_line(LogLevel level, const std::string& text);
// Replaces the progress line (terminal) or logs it as an info line.
void show_progress(const std::string& text);
// The progress line's text: "queue Q | in flight F | pages P (R/s) | errors
// E | seen S". The domains profile counts hosts, so it says "nodes".
std::string progress_text(const ProgressSnapshot& p, double pages_per_second, bool stopping, CrawlProfile profile);
// Ends the progress line so the next output starts on a fresh line.
void end_progress();
bool stderr_is_terminal();
// Suppresses info lines (tests, --quiet); warnings and errors still show.
void set_quiet(bool quiet);

}  // namespace actorcrawl
