#include "core/page/processor_registry.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace actorcrawl {

// Defined beside their classes in page_processor.cc.
std::shared_ptr<PageProcessor> make_html_links(const ProcessorChain::Options& options);
std::shared_ptr<PageProcessor> make_save_pages(const ProcessorChain::Options& options);

const ProcessorRegistry& ProcessorRegistry::builtin() {
  static const ProcessorRegistry registry = [] {
    ProcessorRegistry r;
    r.add("html_links", [](const std::string&, const ProcessorChain::Options& o) { return make_html_links(o); });
    r.add("save_pages", [](const std::string&, const ProcessorChain::Options& o) { return make_save_pages(o); });
    return r;
  }();
  return registry;
}

void ProcessorRegistry::add(const std::string& name, Factory make) { by_name_[name] = std::move(make); }

void ProcessorRegistry::add_object_kind(const std::string& key, Factory make) {
  by_object_key_[key] = std::move(make);
}

std::vector<std::string> ProcessorRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, make] : by_name_)
    out.push_back(name);
  out.push_back("warc");
  std::sort(out.begin(), out.end());
  return out;
}

ProcessorChain ProcessorRegistry::make_chain(const std::vector<std::string>& entries,
                                             const ProcessorChain::Options& options, std::string* error) const {
  const auto fail = [&](const std::string& why) {
    if (error != nullptr)
      *error = "processors: " + why;
    return ProcessorChain{};
  };
  std::vector<std::shared_ptr<PageProcessor>> processors;
  std::shared_ptr<ResponseArchive> archive;
  for (const auto& entry : entries) {
    try {
      if (!entry.empty() && entry.front() == '{') {
        const auto object = nlohmann::json::parse(entry, nullptr, false);
        const Factory* make = nullptr;
        if (object.is_object())
          for (const auto& [key, factory] : by_object_key_)
            if (object.contains(key))
              make = &factory;
        if (make == nullptr) {
          std::string kinds;
          for (const auto& [key, factory] : by_object_key_)
            kinds += (kinds.empty() ? "" : ", ") + key;
          return fail("an object entry must have one of: " + (kinds.empty() ? std::string{"(none here)"} : kinds) +
                      " (" + entry.substr(0, 200) + ")");
        }
        processors.push_back((*make)(entry, options));
        continue;
      }
      if (entry == "warc") {
        if (!options.archive)
          return fail("warc has no archive to write to (warc_dir)");
        archive = options.archive;
        continue;
      }
      const auto it = by_name_.find(entry);
      if (it == by_name_.end()) {
        std::string known;
        for (const auto& name : names())
          known += (known.empty() ? "" : ", ") + name;
        return fail("unknown processor '" + entry + "' (known: " + known + ")");
      }
      processors.push_back(it->second(entry, options));
    } catch (const std::exception& e) {
      return fail(e.what());
    }
  }
  if (processors.size() > ProcessorChain::kMaxProcessors)
    return fail("more than " + std::to_string(ProcessorChain::kMaxProcessors) + " processors in one chain");
  // Items take their processor's name as their kind: two of one name would
  // mix theirs.
  for (std::size_t i = 0; i < processors.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (std::string_view{processors[i]->name()} == processors[j]->name())
        return fail(std::string{"two processors are named '"} + processors[i]->name() + "'");
  return ProcessorChain{std::move(processors), std::move(archive)};
}

}  // namespace actorcrawl
