// ProcessorActor: the fan-in point. Every fetched page from every worker
// passes through the configured processor chain (parsers, savers), then link
// selection; the page record goes to Storage and the links to follow go to
// the Frontier.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

namespace actorcrawl {

class LinkScope;
class ProcessorChain;

struct ProcessorSettings {
  std::shared_ptr<const ProcessorChain> chain;
  std::shared_ptr<const LinkScope> scope;
  std::vector<std::string> strip_query_params;
};

caf::actor spawn_processor(caf::actor_system& sys, ProcessorSettings settings);

}  // namespace actorcrawl
