// `actorcrawl trace FILE...`: filter and render the message traces that the
// crawl's processes write (core/trace/trace_query.h does the work).
#pragma once

#include <string>
#include <vector>

namespace actorcrawl {

// `args` are the words after "trace". Prints on stdout; returns 0, 1 when a
// file cannot be read or holds a bad line, 2 for a usage error.
int trace_command(std::vector<std::string> args);

}  // namespace actorcrawl
