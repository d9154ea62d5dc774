// `actorcrawl export --db FILE --format FORMAT [--graph domains|pages]
// [--output FILE|-]`: a crawl database written out as JSON Lines, CSV,
// GraphML, GEXF or DOT (core/export/crawl_export.h), to a file or stdout.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace actorcrawl {

// What `actorcrawl export --help` prints (the manual page shows it too).
void export_usage(std::ostream& out);

// `args` are the words after "export". A file is written beside itself
// under a temporary name and renamed when whole, so a failed or
// interrupted export leaves no partial file. Returns 0; 2 for a usage
// error (unknown option, format or graph); 1 when the database cannot be
// read (missing, not a crawl database) or the output cannot be written;
// 130 when interrupted.
int export_command(std::vector<std::string> args);

}  // namespace actorcrawl
