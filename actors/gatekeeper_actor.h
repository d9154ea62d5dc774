// The coordinator's front door: the one actor it publishes through the
// middleman. A worker node's join request (messages/join.h) is answered
// with the HostSelector's handle if the worker was built from the same
// message catalogue, and refused, with both digests named on both sides,
// if not.
#pragma once

#include <string>

#include <caf/fwd.hpp>

#include "messages/interfaces.h"

namespace actorcrawl {

gatekeeper_actor spawn_gatekeeper(caf::actor_system& sys, host_selector_actor host_selector, std::string catalogue);

// The text of a refusal, as both sides print it.
std::string catalogue_mismatch_text(const std::string& coordinator_digest, const std::string& worker_digest);

}  // namespace actorcrawl
