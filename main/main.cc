// actorcrawl's command line: `actorcrawl crawl ...` and help.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "runtime/crawl_run.h"
#include "runtime/worker_node.h"
#include "core/report/console_log.h"
#include "core/config/crawl_config.h"
#include "core/config/man_page.h"
#include "core/config/version.h"
#include "core/store/crawl_schema.h"
#include "core/store/crawl_store.h"
#include "core/export/crawl_export.h"
#include "main/export_command.h"
#include "main/extract_command.h"
#include "main/parse_command.h"
#include "main/redrive_command.h"
#include "main/serve_command.h"
#include "main/trace_command.h"
#include "demoweb/demo_web.h"

namespace {

using namespace actorcrawl;

std::atomic<int> stop_requests{0};

// First Ctrl-C / SIGTERM: stop gracefully (the crawl loop polls the flag).
// Second: leave at once; the database is consistent and the next run resumes.
extern "C" void on_stop_signal(int) {
  if (stop_requests.fetch_add(1) >= 1) {
    const char msg[] = "\nforced stop; run the same command again to resume\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(130);
  }
}

// "jsonl|csv|...|changes": every export format, from the list the export
// itself reads, so the two cannot drift apart.
std::string export_formats_alternatives() {
  std::string formats = export_format_names();
  for (std::size_t at = formats.find(", "); at != std::string::npos; at = formats.find(", ", at))
    formats.replace(at, 2, "|");
  return formats;
}

// The command list of --help, one entry a command: its first line indented
// two spaces, its description six (the manual page reads the same layout).
std::string commands_help() {
  return "  actorcrawl crawl [--config FILE] [--seed URL]... [options]\n"
         "      Crawl from the seeds; with no seed, crawl a small demo web started on\n"
         "      loopback. Ctrl-C stops gracefully; the same command again resumes.\n"
         "  actorcrawl coordinator [--config FILE] [--listen HOST:PORT] [--workers N] [options]\n"
         "      Run the crawl (Frontier, HostSelector, Processor, Storage, DeadLetter)\n"
         "      and let worker nodes join it; N local fetch workers (default 0).\n"
         "      Listens on 127.0.0.1:7788 unless told otherwise. See docs/deployment.md.\n"
         "  actorcrawl worker --connect HOST:PORT [--workers N] [options]\n"
         "      Lend N fetch workers to a coordinator; retries a lost coordinator for\n"
         "      reconnect_timeout, then exits (code 4); refused at join: code 3.\n"
         "  actorcrawl serve [--listen HOST:PORT] [--token TOKEN] [--db-dir DIR] [--demo-web] [options]\n"
         "      Run the crawl service: an HTTP API for crawl jobs, a live dashboard at /,\n"
         "      Prometheus metrics at /metrics (127.0.0.1:8088 by default). See\n"
         "      actorcrawl serve --help and docs/service.md.\n"
         "  actorcrawl trace FILE... [--url URL] [--actor NAME] [--type TYPE]\n"
         "                   [--since TIME] [--until TIME] [--mermaid | --summary]\n"
         "      Show message trace files, merged by time: one line per message, a\n"
         "      Mermaid sequence diagram of one URL's journey, or messages and mailbox\n"
         "      times per actor. See actorcrawl trace --help.\n"
         "  actorcrawl redrive --db FILE [--reason REASON] [--older-than DURATION] [--json]\n"
         "      Queue a crawl database's dead letters again, in one transaction; the\n"
         "      next crawl run on it fetches them. See actorcrawl redrive --help.\n"
         "  actorcrawl export --db FILE --format " +
         export_formats_alternatives() +
         "\n"
         "                    [--graph domains|pages] [--kind KIND] [--output FILE]\n"
         "      Write a crawl database out for other tools: its pages (JSON Lines, CSV),\n"
         "      its domain or page graph (GraphML, GEXF, DOT), the items extraction\n"
         "      rules and processors took from its pages (JSON Lines, or one kind as\n"
         "      CSV) or what recrawls found changed (JSON Lines), streamed, to stdout\n"
         "      or a file. See actorcrawl export --help and docs/exports.md.\n"
         "  actorcrawl parse URL [--config FILE] [--css SELECTOR]... [--xpath EXPR]... [options]\n"
         "      Fetch one page as a crawl would and print what its processors take from\n"
         "      it (links, items, failures) as JSON; nothing is written. The way to try\n"
         "      a rule. With --db FILE --url URL, the page a crawl kept instead. See\n"
         "      actorcrawl parse --help.\n"
         "  actorcrawl extract --db FILE [--config FILE] [--kind NAME] [--urls RE2] [--failed]\n"
         "      Run the extraction rules and processors again over the pages a crawl\n"
         "      kept and replace their items; no request is made. See actorcrawl\n"
         "      extract --help.\n"
         "  actorcrawl --help | --version | --default-config | --man-page\n"
         "      This text, the version, every config key with its default as YAML,\n"
         "      or this manual as a roff page (man -l).\n";
}

const char kOptionsIntro[] =
    "options (each is also a YAML key of the config file, and an environment\n"
    "variable ACTORCRAWL_<KEY>; flags override the environment, which overrides\n"
    "the file):\n";

// The options every crawling command takes, with the two that are not keys.
std::string all_options_help() {
  return "  --config FILE, -c FILE\n"
         "      YAML file of config keys (unknown keys are refused)\n"
         "  --quiet\n"
         "      only warnings and errors on stderr\n" +
         options_help();
}

void usage(std::ostream& out) {
  out << "actorcrawl " << actorcrawl_version() << " - a polite web crawler on the C++ Actor Framework\n\n"
      << "usage:\n"
      << commands_help() << "\n"
      << kOptionsIntro << all_options_help();
}

std::string manual_page() {
  ManPageText text;
  text.version = actorcrawl_version();
  text.commands = commands_help();
  text.options_intro = kOptionsIntro;
  text.options = all_options_help();
  auto help_of = [](void (*usage_of)(std::ostream&)) {
    std::ostringstream out;
    usage_of(out);
    return out.str();
  };
  text.command_help = {{"serve", help_of(serve_usage)},
                       {"trace", help_of(trace_usage)},
                       {"redrive", help_of(redrive_usage)},
                       {"export", help_of(export_usage)},
                       {"parse", help_of(parse_usage)},
                       {"extract", help_of(extract_usage)}};
  return man_page(text);
}

enum class Role { crawl, coordinator, worker };

// `crawl` and `coordinator` run the whole topology (the coordinator also
// takes worker nodes); `worker` lends FetchWorkers to a coordinator.
int run_command(Role role, std::vector<std::string> args) {
  bool quiet = false;
  for (auto it = args.begin(); it != args.end();) {
    if (*it == "--help" || *it == "-h") {
      usage(std::cout);
      return 0;
    }
    if (*it == "--quiet" || *it == "-q") {
      quiet = true;
      it = args.erase(it);
    } else {
      ++it;
    }
  }
  set_quiet(quiet);
  CrawlConfig config;
  // A coordinator fetches nothing itself unless told to (--workers N).
  if (role == Role::coordinator)
    config.concurrent_workers = 0;
  std::unique_ptr<demoweb::LoopbackWeb> demo;
  try {
    apply_config_sources(args, config, "actorcrawl --help");
    if (role != Role::worker && config.seeds.empty()) {
      auto web = demoweb::start_demo_web();
      demo = std::move(web.web);
      config.seeds = {web.seed_url};
      if (config.allowed_domains.empty())
        config.allowed_domains = web.host_names();
      log_line(LogLevel::info, "no seed given: crawling the bundled demo web at " + web.seed_url);
    }
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "actorcrawl: configuration error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "actorcrawl: cannot start the demo web: %s\n", e.what());
    return 1;
  }

  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  try {
    if (role == Role::worker) {
      WorkerNodeOptions options;
      options.stop_requests = &stop_requests;
      auto result = run_worker_node(config, options);
      using Outcome = WorkerNodeResult::Outcome;
      switch (result.outcome) {
        case Outcome::crawl_finished:
        case Outcome::stopped:
          log_line(LogLevel::info, result.message);
          return 0;
        case Outcome::refused:
          std::fprintf(stderr, "actorcrawl: %s\n", result.message.c_str());
          return 3;
        case Outcome::coordinator_lost:
          std::fprintf(stderr, "actorcrawl: %s\n", result.message.c_str());
          return 4;
        case Outcome::failed:
          std::fprintf(stderr, "actorcrawl: %s\n", result.message.c_str());
          return 1;
      }
      return 1;
    }
    CrawlRunOptions options;
    options.stop_requests = &stop_requests;
    options.show_progress = !quiet;
    options.coordinator = role == Role::coordinator;
    auto result = run_crawl(config, options);
    if (!result.error.empty()) {
      std::fprintf(stderr, "actorcrawl: %s\n", result.error.c_str());
      return 1;
    }
    return 0;
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "actorcrawl: configuration error: %s\n", e.what());
    return 2;
  } catch (const StoreError& e) {
    std::fprintf(stderr, "actorcrawl: database error: %s\n", e.what());
    return 1;
  } catch (const ListenError& e) {
    std::fprintf(stderr, "actorcrawl: %s\n", e.what());
    return 1;
  }
}

int dispatch(std::vector<std::string> args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    usage(std::cout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--default-config") {
    std::cout << default_config_yaml();
    return 0;
  }
  if (args[0] == "--man-page") {
    std::cout << manual_page();
    return 0;
  }
  if (args[0] == "--version") {
    std::cout << "actorcrawl " << actorcrawl_version() << "\n";
    return 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "crawl")
    return run_command(Role::crawl, std::move(args));
  if (command == "coordinator")
    return run_command(Role::coordinator, std::move(args));
  if (command == "worker")
    return run_command(Role::worker, std::move(args));
  if (command == "trace")
    return trace_command(std::move(args));
  if (command == "redrive")
    return redrive_command(std::move(args));
  if (command == "export")
    return export_command(std::move(args));
  if (command == "parse")
    return parse_command(std::move(args));
  if (command == "extract")
    return extract_command(std::move(args));
  if (command == "serve") {
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    return serve_command(std::move(args), stop_requests);
  }
  std::fprintf(stderr, "actorcrawl: unknown command '%s' (see actorcrawl --help)\n", command.c_str());
  return 2;
}

}  // namespace

// Nothing a user types or a file holds may end the process with an uncaught
// exception: a configuration problem exits 2, anything else 1, each with a
// message.
int main(int argc, char** argv) {
  actorcrawl::configure_sqlite_for_process();
  try {
    return dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "actorcrawl: configuration error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "actorcrawl: error: %s\n", e.what());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "actorcrawl: error: unknown failure\n");
    return 1;
  }
}
