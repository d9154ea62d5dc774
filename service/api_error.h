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
      : std::runtime_error(message), status_(status), code_(std::move(code)), message_(message) {}
  int status() const { return status_; }
  const std::string& code() const { return code_; }
  // The whole message: what() ends at the first NUL, and a message may
  // quote a client's NUL ("format: '\0'").
  const std::string& message() const { return message_; }
  std::string json() const;

 private:
  int status_;
  std::string code_;
  std::string message_;
};

}  // namespace actorcrawl
