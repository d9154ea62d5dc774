#include "main/parse_command.h"

#include <cstdio>
#include <iostream>

#include "core/config/crawl_config.h"
#include "core/report/console_log.h"
#include "core/setup/page_trial.h"
#include "core/store/store_error.h"

namespace actorcrawl {

void parse_usage(std::ostream& out) {
  out << "usage: actorcrawl parse URL [--config FILE] [--css SELECTOR]... [--xpath EXPR]... [crawl options]\n"
         "       actorcrawl parse --db FILE --url URL [--config FILE] [--css SELECTOR]... [--xpath EXPR]...\n\n"
         "Fetches one page as a crawl would (its robots.txt obeyed, the configuration's\n"
         "user agent, headers, credentials and proxy, redirects followed), runs the\n"
         "crawl's processors on it (html_links, the extraction rules, external\n"
         "processors) and prints what the crawl would keep, as one JSON object: status,\n"
         "title, redirects, links (each with followed), items and processor failures.\n"
         "Nothing is written. The way to try a rule before a crawl.\n\n"
         "With --db, the page comes from that crawl database instead, from the body\n"
         "the crawl kept (keep_bodies): no request is made, and the database is only\n"
         "read (a crawl may be writing it). The way to try a rule on what a crawl saw.\n"
         "A body a cluster's worker node kept is read from its file in bodies_dir\n"
         "(--bodies-dir DIR).\n\n"
         "  --config FILE     the crawl's configuration (its rules, processors, requests)\n"
         "  --css SELECTOR    also list this selector's values on the page (\"selected\"),\n"
         "                    as a field with all: true gives them; repeatable\n"
         "  --xpath EXPR      the same for an XPath 1.0 expression\n"
         "  --extract RULES   rules to try, as YAML or JSON (the config key `extract`)\n"
         "  --db FILE         read the page from this crawl database (its kept body)\n"
         "  --url URL         the page (the same as giving URL first)\n\n"
         "Any crawl option applies (--user-agent, --header, --no-respect-robots-txt, ...).\n"
         "Exit codes: 0 printed; 1 no page was read (robots.txt disallows it, the fetch\n"
         "failed, the database has no such page or did not keep its body); 2 a usage\n"
         "or configuration error.\n";
}

int parse_command(std::vector<std::string> args) {
  std::string url;
  std::string db;
  std::vector<TrialSelector> selectors;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      parse_usage(std::cout);
      return 0;
    }
    if (a == "--css" || a == "--xpath" || a == "--db" || a == "--url") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "actorcrawl parse: %s needs a value\n", a.c_str());
        return 2;
      }
      if (a == "--db")
        db = args[++i];
      else if (a == "--url")
        url = args[++i];
      else
        selectors.emplace_back(a.substr(2), args[++i]);
    } else if (url.empty() && !a.empty() && a[0] != '-' && (i == 0 || rest.empty())) {
      url = a;
    } else {
      rest.push_back(a);
    }
  }
  if (url.empty()) {
    std::fprintf(stderr, "actorcrawl parse: give the page's URL first (see actorcrawl parse --help)\n");
    return 2;
  }
  set_quiet(true);
  try {
    CrawlConfig config;
    apply_config_sources(rest, config, "actorcrawl parse --help");
    const PageTrialResult result =
      db.empty() ? try_page(config, url, selectors) : try_stored_page(config, db, url, selectors);
    if (!result.error.empty()) {
      std::fprintf(stderr, "actorcrawl parse: %s\n", result.error.c_str());
      return 1;
    }
    std::cout << result.json << "\n";
    return 0;
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "actorcrawl parse: configuration error: %s\n", e.what());
    return 2;
  } catch (const StoreError& e) {
    std::fprintf(stderr, "actorcrawl parse: %s\n", e.what());
    return 1;
  }
}

}  // namespace actorcrawl
