// `actorcrawl redrive --db FILE [--reason R] [--older-than D]`: queues the
// dead letters of a crawl database again (CrawlStore::redrive_dead_letters,
// one transaction), so the next run on the database fetches them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace actorcrawl {

// What `actorcrawl redrive --help` prints (the manual page shows it too).
void redrive_usage(std::ostream& out);

// `args` are the words after "redrive". Prints what was requeued on stdout;
// returns 0, 1 when the database cannot be used (missing, in use by a
// crawl, not a crawl database), 2 for a usage error.
int redrive_command(std::vector<std::string> args);

}  // namespace actorcrawl
