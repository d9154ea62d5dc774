// `actorcrawl extract --db FILE [--config FILE] [--kind K] [--urls RE2]
// [--failed]`: the extraction rules and processors run again over the pages
// a crawl kept, their items replaced, no request made
// (core/setup/reextraction.h).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace actorcrawl {

// What `actorcrawl extract --help` prints (the manual page shows it too).
void extract_usage(std::ostream& out);

// `args` are the words after "extract". Returns 0 when every page was
// processed again, 1 for a database that cannot be read or written (a crawl
// holds it), 2 for a usage or configuration error.
int extract_command(std::vector<std::string> args);

}  // namespace actorcrawl
