// The actorcrawl binary run to its end by a test, as a user runs it from a
// shell: the exit code and everything it printed.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace actorcrawl::testing {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// `actorcrawl <args>` (a shell's words, quoted as a shell quotes them), in
// `directory` when one is given.
inline Outcome run(const std::string& args, const std::string& directory = "") {
  const std::string cmd = (directory.empty() ? std::string{} : "cd '" + directory + "' && ") +
                          std::string{ACTORCRAWL_BINARY} + " " + args + " 2>&1";
  Outcome out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr)
    throw std::runtime_error("cannot run " + cmd);
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    out.output.append(buf.data(), n);
  const int status = pclose(p);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

}  // namespace actorcrawl::testing
