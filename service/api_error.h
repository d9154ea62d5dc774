// An error the crawl service's HTTP API answers with: the HTTP status, a
// stable machine-readable code and a message for people. Rendered as
// {"error": {"code": ..., "message": ...}}.
#pragma once

#include <stdexcept>
#include <string>

namespace actorcrawl {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string code, const std::string& message)
      : std::runtime_error(message), status_(status), code_(std::move(code)) {}
  int status() const { return status_; }
  const std::string& code() const { return code_; }
  std::string json() const;

 private:
  int status_;
  std::string code_;
};

}  // namespace actorcrawl
