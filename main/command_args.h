// The words after a subcommand (`actorcrawl export ...`), read flag by
// flag: each command's loop asks for the next word and, after a flag that
// takes one, for its value.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/config/crawl_config.h"

namespace actorcrawl {

class CommandArgs {
 public:
  explicit CommandArgs(std::vector<std::string> words) : words_(std::move(words)) {}

  bool done() const { return next_ >= words_.size(); }
  // The next word (a flag). Only when !done().
  const std::string& flag() { return words_[next_++]; }
  // The word after the flag just read. Throws ConfigError naming the flag
  // when there is none.
  std::string value() {
    if (done())
      throw ConfigError(words_[next_ - 1] + " needs a value");
    return words_[next_++];
  }

 private:
  std::vector<std::string> words_;
  std::size_t next_ = 0;
};

}  // namespace actorcrawl
