// The program's version: the project version in CMakeLists.txt, compiled in
// once, for --version, the service's /api/info and anything else that says it.
#pragma once

namespace actorcrawl {

const char* actorcrawl_version();

}  // namespace actorcrawl
