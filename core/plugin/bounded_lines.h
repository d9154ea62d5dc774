// Lines cut from a byte stream (a plugin's stdout or stderr) with a bound
// on what is held: a line longer than the bound is not kept whole but
// consumed up to its newline and reported as too long, with its first
// bytes, so a plugin's runaway output costs the crawler no more than the
// bound and the next line is read in step.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace actorcrawl {

class BoundedLineSplitter {
 public:
  struct Line {
    std::string text;       // without its newline; for a too-long line, its first bytes
    bool too_long = false;  // the line was longer than max_line_bytes
    std::size_t length = 0; // the line's whole length, in bytes
  };
  using LineHandler = std::function<void(Line)>;

  // Lines up to `max_line_bytes` are handed over whole; of a longer one,
  // the first `kept_of_long_line` bytes (at most max_line_bytes).
  BoundedLineSplitter(std::size_t max_line_bytes, std::size_t kept_of_long_line);

  // Hands each line `bytes` completes to `on_line`, in order.
  void feed(std::string_view bytes, const LineHandler& on_line);
  // End of the stream: an unterminated last line, if any, is handed over.
  void finish(const LineHandler& on_line);

 private:
  std::size_t max_line_bytes_;
  std::size_t kept_of_long_line_;
  std::string line_;           // the line so far (while it fits the bound)
  bool discarding_ = false;    // past the bound: dropping bytes up to the newline
  std::size_t length_ = 0;     // of the line so far, kept or not
};

}  // namespace actorcrawl
