// The coordinator's front door: the one actor it publishes through the
// middleman. A worker node's join request (messages/join.h) is answered
// with `welcome` (the crawl's actors and configuration) if the worker was
// built from the same message catalogue, and refused, with both digests
// named on both sides, if not. A node that then finds it cannot run the
// crawl's processing says so (node_unfit), and the coordinator logs it.
#pragma once

#include <string>

#include <caf/fwd.hpp>

#include "messages/topology.h"

namespace actorcrawl {

gatekeeper_actor spawn_gatekeeper(caf::actor_system& sys, node_welcome welcome, std::string catalogue);

// The text of a refusal, as both sides print it.
std::string catalogue_mismatch_text(const std::string& coordinator_digest, const std::string& worker_digest);

}  // namespace actorcrawl
