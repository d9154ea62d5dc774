// ProcessorActor: the fan-in point. Every fetched page from every worker
// passes through the configured processor chain (parsers, savers), then link
// selection; the page record goes to Storage and the links to follow go to
// the Frontier. Parsing is the crawler's most expensive step, so the actor
// spreads pages over several parser lanes (its own child actors), one per
// core by default.
#pragma once

#include <memory>

#include <caf/fwd.hpp>

#include "messages/interfaces.h"

namespace actorcrawl {

class PagePipeline;
class NodeBodiesWriter;

struct ProcessorSettings {
  std::shared_ptr<const PagePipeline> pipeline;
  bool log_each_page = false;  // a log line per page fetched (the domains profile's)
  // A worker node's own file for the bodies it keeps (bodies_dir); none:
  // kept bodies go with the pages' rows to Storage.
  std::shared_ptr<NodeBodiesWriter> node_bodies;
};

// `lanes` parsers work in parallel behind the one ProcessorActor.
processor_actor spawn_processor(caf::actor_system& sys, ProcessorSettings settings, std::size_t lanes);

}  // namespace actorcrawl
