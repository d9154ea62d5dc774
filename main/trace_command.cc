#include "main/trace_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string_view>

#include "core/trace/trace_query.h"

namespace actorcrawl {

namespace {

// A diagram longer than this is no longer readable; --url makes it one URL's.
constexpr std::size_t kMermaidWarnMessages = 500;

}  // namespace

void trace_usage(std::ostream& out) {
  out << "usage: actorcrawl trace FILE... [options]\n\n"
         "Reads message trace files (JSON Lines, one per process), merges them by time\n"
         "and prints one line per message: milliseconds since the first record, node,\n"
         "sender -> receiver, type, URL and key fields.\n\n"
         "options:\n"
         "  --url URL       only messages that carry this URL (exactly)\n"
         "  --actor NAME    only messages from or to this actor; \"fetch_worker\" also\n"
         "                  matches \"fetch_worker/2\"\n"
         "  --type TYPE     only messages of this type (crawl_batch, fetch_job, ...)\n"
         "  --since TIME    only messages at or after TIME\n"
         "  --until TIME    only messages at or before TIME\n"
         "                  TIME is 2026-11-22T21:00:00Z (UTC), epoch milliseconds, or\n"
         "                  +SECONDS after the first record (+2.5)\n"
         "  --mermaid       print a Mermaid sequence diagram instead (best with --url)\n"
         "  --summary       print messages and mailbox times per actor instead\n"
         "  --help, -h      this text\n\n"
         "Options with a value also take the form --url=URL. Exit status: 0; 1 when\n"
         "a file cannot be read or holds a bad line; 2 for a usage error.\n";
}

namespace {

int usage_error(const std::string& message) {
  std::fprintf(stderr, "actorcrawl: trace: %s (see actorcrawl trace --help)\n", message.c_str());
  return 2;
}

}  // namespace

int trace_command(std::vector<std::string> args) {
  std::vector<std::string> files;
  std::optional<std::string> since_text, until_text;
  TraceFilter filter;
  bool mermaid = false, summary = false, options_done = false;

  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      files.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      trace_usage(std::cout);
      return 0;
    }
    if (arg == "--mermaid" || arg == "--summary") {
      (arg == "--mermaid" ? mermaid : summary) = true;
      continue;
    }
    // An option with a value: "--url U" or "--url=U".
    const auto equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    if (name == "--mermaid" || name == "--summary" || name == "--help")
      return usage_error(name + " takes no value");
    std::optional<std::string>* target = nullptr;
    if (name == "--url")
      target = &filter.url;
    else if (name == "--actor")
      target = &filter.actor;
    else if (name == "--type")
      target = &filter.type;
    else if (name == "--since")
      target = &since_text;
    else if (name == "--until")
      target = &until_text;
    else
      return usage_error("unknown option '" + name + "'");
    std::string value;
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else {
      if (i + 1 == args.size())
        return usage_error(name + " needs a value");
      value = args[++i];
    }
    if (value.empty())
      return usage_error(name + " needs a value");
    if (*target)
      return usage_error(name + " given twice");
    *target = value;
  }
  if (mermaid && summary)
    return usage_error("--mermaid and --summary cannot be combined");
  if (files.empty())
    return usage_error("no trace file given");

  // Check the time bounds' form before reading what may be large files; the
  // values of +SECONDS depend on the first record and are computed below.
  try {
    for (const auto* text : {&since_text, &until_text})
      if (*text)
        parse_time_bound(**text, 0);
  } catch (const TimeBoundError& e) {
    return usage_error(e.what());
  }

  // URL, actor and type filter while reading, so only what is kept stays in
  // memory; the time bounds need the first record of all files, known after.
  std::vector<TraceRecord> selected;
  std::int64_t first_wall_us = 0;
  try {
    selected = read_trace_files(files, filter, &first_wall_us);
  } catch (const std::exception& e) {  // TraceFileError, TraceFormatError
    std::fprintf(stderr, "actorcrawl: trace: %s\n", e.what());
    return 1;
  }
  if (since_text || until_text) {
    TraceFilter by_time;
    try {
      if (since_text)
        by_time.since_wall_us = parse_time_bound(*since_text, first_wall_us);
      if (until_text)
        by_time.until_wall_us = parse_time_bound(*until_text, first_wall_us);
    } catch (const TimeBoundError& e) {
      return usage_error(e.what());
    }
    selected.erase(std::remove_if(selected.begin(), selected.end(),
                                  [&by_time](const TraceRecord& r) { return !by_time.matches(r); }),
                   selected.end());
  }

  std::string out;
  if (mermaid) {
    if (!filter.url && selected.size() > kMermaidWarnMessages)
      std::fprintf(stderr,
                   "actorcrawl: trace: warning: the diagram has %zu messages; --url URL shows one URL's journey\n",
                   selected.size());
    out = render_mermaid(selected);
  } else if (summary) {
    out = render_summary(selected);
  } else {
    // Times count from the first record of all files, the origin of +SECONDS.
    out = render_lines(selected, first_wall_us);
    if (selected.empty())
      std::fprintf(stderr, "actorcrawl: trace: no message matches\n");
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return 0;
}

}  // namespace actorcrawl
