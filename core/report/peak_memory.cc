#include "core/report/peak_memory.h"

#include <cstdlib>
#include <fstream>
#include <string>

namespace actorcrawl {

std::int64_t peak_resident_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0)
      return std::atoll(line.c_str() + 6);
  return 0;
}

}  // namespace actorcrawl
