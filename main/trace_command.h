// `actorcrawl trace FILE...`: filter and render the message traces that the
// crawl's processes write (core/trace/trace_query.h does the work).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace actorcrawl {

// What `actorcrawl trace --help` prints (the manual page shows it too).
void trace_usage(std::ostream& out);

// `args` are the words after "trace". Prints on stdout; returns 0, 1 when a
// file cannot be read or holds a bad line, 2 for a usage error.
int trace_command(std::vector<std::string> args);

}  // namespace actorcrawl
