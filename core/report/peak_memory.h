// How much memory this process has held at most, for metrics.log: the
// kernel's high-water mark of its resident set since it started its
// program (VmHWM in /proc/self/status). Not getrusage's ru_maxrss, which
// also counts what the process that forked it held before the exec.
#pragma once

#include <cstdint>

namespace actorcrawl {

// KiB; 0 where the kernel does not say (no /proc).
std::int64_t peak_resident_kib();

}  // namespace actorcrawl
