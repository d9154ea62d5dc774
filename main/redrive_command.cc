#include "main/redrive_command.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/clock/clock.h"
#include "core/config/crawl_config.h"
#include "core/store/crawl_store.h"
#include "core/web/json_text.h"
#include "main/command_args.h"

namespace actorcrawl {

void redrive_usage(std::ostream& out) {
  out << "usage: actorcrawl redrive --db FILE [--reason REASON] [--older-than DURATION] [--json]\n\n"
         "Queues the crawl database's dead letters again: each letter is marked re-driven\n"
         "and its URL's frontier row queued, in one transaction. The next crawl run on\n"
         "the database (the same crawl command) fetches them. URLs fetched since their\n"
         "letter are left as they are. Refused while a crawl runs on the database.\n\n"
         "  --db FILE             the crawl database\n"
         "  --reason REASON       only letters of this reason (http_404, private_address, ...)\n"
         "  --older-than DURATION only letters older than this (30m, 2h, 7d)\n"
         "  --json                print the report as JSON\n";
}

int redrive_command(std::vector<std::string> args) {
  std::string db;
  RedriveFilter filter;
  bool as_json = false;
  try {
    CommandArgs words(std::move(args));
    while (!words.done()) {
      const std::string a = words.flag();
      const auto value = [&] { return words.value(); };
      if (a == "--help" || a == "-h") {
        redrive_usage(std::cout);
        return 0;
      } else if (a == "--db") {
        db = value();
      } else if (a == "--reason") {
        filter.reason = value();
      } else if (a == "--older-than") {
        const std::string text = value();
        const std::int64_t age = parse_duration_ms(text);
        if (age < 0)
          throw ConfigError("--older-than: a duration is not negative: '" + text + "'");
        filter.failed_before_ms = epoch_ms() - age;
      } else if (a == "--json") {
        as_json = true;
      } else {
        throw ConfigError("unknown argument '" + a + "'");
      }
    }
    if (db.empty())
      throw ConfigError("--db FILE is required");
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "actorcrawl redrive: %s (see actorcrawl redrive --help)\n", e.what());
    return 2;
  }
  if (!std::filesystem::exists(db)) {
    std::fprintf(stderr, "actorcrawl redrive: no database at '%s'\n", db.c_str());
    return 1;
  }
  RedriveReport report;
  try {
    CrawlStore store(db);
    report = store.redrive_dead_letters(filter);
  } catch (const StoreError& e) {
    std::fprintf(stderr, "actorcrawl redrive: database error: %s\n", e.what());
    return 1;
  }
  if (as_json) {
    nlohmann::json by_reason = nlohmann::json::object();
    for (const auto& [reason, n] : report.by_reason)
      by_reason[reason] = n;
    std::cout << json_text(nlohmann::json{{"letters", report.letters},
                                          {"requeued", report.requeued},
                                          {"already_queued_or_done", report.already_queued_or_done},
                                          {"by_reason", by_reason}})
              << "\n";
    return 0;
  }
  std::cout << "re-drove " << report.letters << " dead letter" << (report.letters == 1 ? "" : "s") << ": "
            << report.requeued << " URL" << (report.requeued == 1 ? "" : "s") << " queued again";
  if (report.already_queued_or_done > 0)
    std::cout << ", " << report.already_queued_or_done << " already queued or fetched since";
  std::cout << "\n";
  for (const auto& [reason, n] : report.by_reason)
    std::cout << "  " << reason << "\t" << n << "\n";
  if (report.requeued > 0)
    std::cout << "run the crawl again on " << db << " to fetch them\n";
  return 0;
}

}  // namespace actorcrawl
