#include "core/config/version.h"

namespace actorcrawl {

const char* actorcrawl_version() { return ACTORCRAWL_VERSION; }

}  // namespace actorcrawl
