// ProcessorActor: the fan-in point. Every fetched page from every worker
// passes through the configured processor chain (parsers, savers), then link
// selection; the page record goes to Storage and the links to follow go to
// the Frontier. Parsing is the crawler's most expensive step, so the actor
// spreads pages over several parser lanes (its own child actors), one per
// core by default.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

namespace actorcrawl {

class DomainLinkFilter;
class LinkScope;
class ProcessorChain;

struct ProcessorSettings {
  std::shared_ptr<const ProcessorChain> chain;
  std::shared_ptr<const LinkScope> scope;  // site profile
  std::shared_ptr<const DomainLinkFilter> domains;  // domains profile, when set
  std::vector<std::string> strip_query_params;
  std::string robots_token;  // product token X-Robots-Tag agents are matched to
};

// `lanes` parsers work in parallel behind the one ProcessorActor.
caf::actor spawn_processor(caf::actor_system& sys, ProcessorSettings settings, std::size_t lanes);

}  // namespace actorcrawl
