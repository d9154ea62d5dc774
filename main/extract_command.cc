#include "main/extract_command.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/config/crawl_config.h"
#include "core/report/console_log.h"
#include "core/setup/reextraction.h"
#include "core/store/store_error.h"
#include "core/web/json_text.h"

namespace actorcrawl {

void extract_usage(std::ostream& out) {
  out << "usage: actorcrawl extract --db FILE [--config FILE] [--kind NAME] [--urls RE2] [--failed] [--json]\n\n"
         "Runs the configuration's extraction rules and processors again over the pages\n"
         "of a crawl database, from the bodies the crawl kept (keep_bodies), and\n"
         "replaces each page's items and processor failures with what they give now,\n"
         "one transaction a page. No request is made. The loop of developing rules:\n"
         "crawl once, then change a rule and run extract as often as needed.\n\n"
         "  --db FILE         the crawl database (refused while a crawl writes it)\n"
         "  --config FILE     the configuration whose `extract` rules and `processors`\n"
         "                    run (html_links, extract, external processors; save_pages\n"
         "                    and warc write files and do not run again)\n"
         "  --extract RULES   rules as YAML or JSON (the config key `extract`)\n"
         "  --kind NAME       only this rule's or external processor's items (and its\n"
         "                    failures) are replaced; the page's others stay\n"
         "  --urls RE2        only the pages whose URL this pattern is found in\n"
         "  --failed          only the pages a processor failed on (processor_failures):\n"
         "                    a fixed plugin given its pages again\n"
         "  --json            print the summary as JSON\n\n"
         "Without --kind, a page's items become exactly what the configuration's\n"
         "processors give: the items of a rule no longer configured go. Pages whose\n"
         "body was not kept (crawled without keep_bodies) are counted and left as\n"
         "they are. The bodies a cluster's worker nodes kept are read from their files\n"
         "(actorcrawl-bodies-NODE.db) in bodies_dir: gather them there, or give\n"
         "--bodies-dir DIR. Any crawl option applies (--no-respect-robots-txt has no\n"
         "effect).\n"
         "An external processor that cannot process a page keeps the items its earlier\n"
         "run gave that page; one that can go on no more (a crash loop) stops the run\n"
         "there, the pages after it left as they were.\n"
         "Exit codes: 0 done; 1 the database cannot be read or written (a crawl holds\n"
         "it), or a processor stopped the run; 2 a usage or configuration error.\n";
}

namespace {

void print_summary(const ReextractReport& r, bool as_json) {
  if (as_json) {
    nlohmann::ordered_json by_kind = nlohmann::ordered_json::object();
    for (const auto& [kind, n] : r.items_by_kind)
      by_kind[kind] = n;
    nlohmann::ordered_json unreadable = nlohmann::ordered_json::object();
    for (const auto& [why, n] : r.unreadable_bodies)
      unreadable[why] = n;
    nlohmann::ordered_json failures = nlohmann::ordered_json::array();
    for (const auto& f : r.failures)
      failures.push_back({{"processor", f.processor}, {"reason", f.reason}, {"pages", f.count}});
    nlohmann::ordered_json processors = nlohmann::ordered_json::array();
    for (const auto& t : r.processors)
      processors.push_back({{"processor", t.processor}, {"pages", t.pages}, {"failed", t.failed}});
    const nlohmann::ordered_json summary{{"pages", r.pages},
                                         {"pages_not_matched", r.pages_not_matched},
                                         {"pages_without_body", r.pages_without_body},
                                         {"unreadable_bodies", unreadable},
                                         {"items_before", r.items_before},
                                         {"items_after", r.items_after},
                                         {"items_by_kind", by_kind},
                                         {"processor_failures", failures},
                                         {"processors", processors},
                                         {"stopped", r.stopped}};
    std::cout << json_text(summary, 2) << "\n";
    return;
  }
  std::cout << "pages processed again: " << r.pages << "\n"
            << "items: " << r.items_before << " before, " << r.items_after << " now\n";
  for (const auto& [kind, n] : r.items_by_kind)
    std::cout << "  " << kind << ": " << n << "\n";
  for (const auto& t : r.processors)
    std::cout << "processor " << t.processor << ": " << t.pages << " pages, " << t.failed << " failed\n";
  for (const auto& f : r.failures)
    std::cout << "  failed: " << f.processor << " " << f.reason << " on " << f.count << " pages\n";
  if (r.pages_not_matched > 0)
    std::cout << "pages not matched by --urls: " << r.pages_not_matched << "\n";
  for (const auto& [why, n] : r.unreadable_bodies)
    std::cout << "kept bodies that could not be read (" << why << "), pages left as they were: " << n << "\n";
  if (r.pages_without_body > 0)
    std::cout << "pages whose body was not kept, left as they were: " << r.pages_without_body
              << " (crawled without keep_bodies, or kept by a worker node whose actorcrawl-bodies-NODE.db is not in "
                 "bodies_dir)\n";
}

}  // namespace

int extract_command(std::vector<std::string> args) {
  ReextractOptions options;
  bool as_json = false;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      extract_usage(std::cout);
      return 0;
    }
    if (a == "--db" || a == "--kind" || a == "--urls") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "actorcrawl extract: %s needs a value\n", a.c_str());
        return 2;
      }
      const std::string& value = args[++i];
      if (a == "--db")
        options.db_path = value;
      else if (a == "--kind")
        options.kind = value;
      else
        options.url_pattern = value;
    } else if (a == "--failed") {
      options.failed_only = true;
    } else if (a == "--json") {
      as_json = true;
    } else {
      rest.push_back(a);
    }
  }
  if (options.db_path.empty()) {
    std::fprintf(stderr, "actorcrawl extract: --db FILE is required (see actorcrawl extract --help)\n");
    return 2;
  }
  if (!std::filesystem::exists(options.db_path)) {
    std::fprintf(stderr, "actorcrawl extract: no database at '%s'\n", options.db_path.c_str());
    return 1;
  }
  try {
    CrawlConfig config;
    apply_config_sources(rest, config, "actorcrawl extract --help");
    // A progress line a second on stderr, so a long run shows it is moving.
    auto last = std::chrono::steady_clock::now();
    const auto progress = [&](const ReextractReport& r) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::seconds{1})
        return;
      last = now;
      std::fprintf(stderr, "actorcrawl extract: %lld pages, %lld items\n", static_cast<long long>(r.pages),
                   static_cast<long long>(r.items_after));
    };
    const ReextractReport report = reextract(config, options, progress);
    print_summary(report, as_json);
    if (!report.stopped.empty()) {
      std::fprintf(stderr, "actorcrawl extract: stopped before the last page: %s\n", report.stopped.c_str());
      return 1;
    }
    return 0;
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "actorcrawl extract: configuration error: %s\n", e.what());
    return 2;
  } catch (const StoreError& e) {
    std::fprintf(stderr, "actorcrawl extract: database error: %s\n", e.what());
    return 1;
  }
}

}  // namespace actorcrawl
