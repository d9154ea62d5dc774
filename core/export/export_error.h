// Why an export failed, for the command's exit code and the service's
// status: each kind's message names the path and the problem.
#pragma once

#include "core/store/store_error.h"

namespace actorcrawl {

class ExportError : public StoreError {
 public:
  enum class Kind {
    missing_database,      // no file at the path
    not_a_crawl_database,  // not SQLite, or SQLite without a crawl's tables, or a newer schema
    read_failed,           // the database failed mid-read (I/O, corruption)
    write_failed,          // the output would not take more bytes
  };
  ExportError(Kind kind, const std::string& message) : StoreError(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

}  // namespace actorcrawl
