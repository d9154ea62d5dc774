#include "core/plugin/bounded_lines.h"

#include <algorithm>
#include <utility>

namespace actorcrawl {

BoundedLineSplitter::BoundedLineSplitter(std::size_t max_line_bytes, std::size_t kept_of_long_line)
    : max_line_bytes_(max_line_bytes), kept_of_long_line_(std::min(kept_of_long_line, max_line_bytes)) {}

void BoundedLineSplitter::feed(std::string_view bytes, const LineHandler& on_line) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    const std::string_view part = bytes.substr(0, newline);
    length_ += part.size();
    if (!discarding_) {
      if (line_.size() + part.size() > max_line_bytes_) {
        // Keep only the beginning; the rest of the line is dropped as it comes.
        const std::size_t room = kept_of_long_line_ > line_.size() ? kept_of_long_line_ - line_.size() : 0;
        line_.append(part.substr(0, room));
        line_.resize(std::min(line_.size(), kept_of_long_line_));
        discarding_ = true;
      } else {
        line_.append(part);
      }
    }
    if (newline == std::string_view::npos)
      return;
    bytes.remove_prefix(newline + 1);
    Line line{std::move(line_), discarding_, length_};
    line_.clear();
    discarding_ = false;
    length_ = 0;
    on_line(std::move(line));
  }
}

void BoundedLineSplitter::finish(const LineHandler& on_line) {
  if (length_ == 0 && line_.empty())
    return;
  Line line{std::move(line_), discarding_, length_};
  line_.clear();
  discarding_ = false;
  length_ = 0;
  on_line(std::move(line));
}

}  // namespace actorcrawl
