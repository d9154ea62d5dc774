// The one error the store throws: an unusable database (cannot open, cannot
// create the schema, disk errors). The message names the path, the
// operation and SQLite's reason.
#pragma once

#include <stdexcept>

namespace actorcrawl {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace actorcrawl
