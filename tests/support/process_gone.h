// Whether a process has ended, for the tests of what must not outlive what
// (a plugin its crawler, a plugin's children their plugin).
#pragma once

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace actorcrawl::testing {

// No such process, or a zombie nobody reaped yet (its state in
// /proc/PID/stat, the letter after the command's closing parenthesis).
inline bool process_gone(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text))
    return true;
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

// Waits up to `within` for process_gone(pid), looking every 20 ms.
inline bool process_gone_within(long pid, std::chrono::milliseconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!process_gone(pid)) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  return true;
}

}  // namespace actorcrawl::testing
