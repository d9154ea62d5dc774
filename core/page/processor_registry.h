// Every processor a `processors` entry can name, in one registry: the
// built-ins (html_links, save_pages) register here the way any processor
// does, and the crawl's setup adds those that need more than a name
// (`extract` with its rules, external processors: entries that are objects
// with `exec`). A contributor's C++ processor is one file with a
// PageProcessor and one add() line in ProcessorRegistry::builtin().
//
// An entry is a name ("html_links") or an object kept as JSON text
// ({"name": "lang", "exec": [...], ...}); `warc` is no processor but the
// archive every response goes to (ProcessorChain::Options::archive).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/page/page_processor.h"

namespace actorcrawl {

class ProcessorRegistry {
 public:
  // Makes the processor of `entry` (its name, or its JSON object text).
  // Throws std::runtime_error with a message naming the entry when it
  // cannot be made.
  using Factory = std::function<std::shared_ptr<PageProcessor>(const std::string& entry,
                                                               const ProcessorChain::Options& options)>;

  // html_links and save_pages.
  static const ProcessorRegistry& builtin();

  void add(const std::string& name, Factory make);
  // Object entries with `key` (e.g. "exec") are made by `make`.
  void add_object_kind(const std::string& key, Factory make);

  // The processors of `entries`, in order, and the archive when `warc` is
  // one of them. An entry nothing makes is an error naming it and the known
  // names.
  ProcessorChain make_chain(const std::vector<std::string>& entries, const ProcessorChain::Options& options,
                            std::string* error) const;
  // Known names, sorted, with "warc".
  std::vector<std::string> names() const;

 private:
  std::map<std::string, Factory> by_name_;
  std::map<std::string, Factory> by_object_key_;
};

}  // namespace actorcrawl
