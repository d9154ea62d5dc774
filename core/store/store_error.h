// The store's errors: an unusable database (cannot open, cannot create the
// schema, disk errors), and one refinement a caller may want to tell apart,
// a database another writer holds. Each message names the path, the
// operation and the reason.
#pragma once

#include <stdexcept>

namespace actorcrawl {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The database is being written by another process (or another store of
// this one): one writer per database (database_lock.h). The message names
// the holder: "database 'x.db' is in use by another actorcrawl (pid 1234 on
// host h, started 2026-11-25T10:00:00Z, actorcrawl crawl)".
class DatabaseInUse : public StoreError {
 public:
  using StoreError::StoreError;
};

}  // namespace actorcrawl
