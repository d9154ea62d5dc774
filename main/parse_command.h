// `actorcrawl parse URL [--config FILE] [--css SEL | --xpath EXPR]...`:
// one page fetched and processed as a crawl would, printed as JSON, nothing
// written; with `--db FILE`, the page a crawl kept instead
// (core/setup/page_trial.h).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace actorcrawl {

// What `actorcrawl parse --help` prints (the manual page shows it too).
void parse_usage(std::ostream& out);

// `args` are the words after "parse". Prints the page's JSON on stdout;
// returns 0, 1 when no page could be read (robots.txt disallows it, the
// fetch failed), 2 for a usage or configuration error.
int parse_command(std::vector<std::string> args);

}  // namespace actorcrawl
