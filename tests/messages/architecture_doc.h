// docs/architecture.md as text: the message and interface tables the
// catalogue tests hold against the code.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace actorcrawl::testing {

inline std::string architecture_doc() {
  std::ifstream in(std::string{ACTORCRAWL_SOURCE_DIR} + "/docs/architecture.md");
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace actorcrawl::testing
