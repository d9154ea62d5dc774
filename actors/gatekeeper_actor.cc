#include "actors/gatekeeper_actor.h"

#include <caf/all.hpp>

#include "core/report/console_log.h"
#include "instrument/message_trace.h"
#include "messages/catalogue.h"
#include "messages/join.h"

namespace actorcrawl {

std::string catalogue_mismatch_text(const std::string& coordinator_digest, const std::string& worker_digest) {
  return "message catalogue mismatch: the coordinator's is " + coordinator_digest + ", the worker's is " +
         worker_digest + "; run the same actorcrawl build on every node";
}

namespace {

gatekeeper_actor::behavior_type gatekeeper_behavior(gatekeeper_actor::pointer self, node_welcome welcome,
                                                    std::string catalogue) {
  return {
    [=](const std::string& tag, const std::string& digest, const std::string& node) -> caf::result<node_welcome> {
      if (tag != kJoinTag) {
        log_line(LogLevel::warn, "refused a connection from " + node + ": not an actorcrawl join request");
        return caf::make_error(caf::sec::runtime_error, std::string{"unknown join protocol '"} + tag + "'");
      }
      if (digest != catalogue) {
        const auto why = catalogue_mismatch_text(catalogue, digest);
        log_line(LogLevel::error, "refused worker node " + node + ": " + why);
        return caf::make_error(caf::sec::runtime_error, why);
      }
      log_line(LogLevel::info, "worker node " + node + " joined");
      return welcome;
    },
    [](const node_lanes& named) {
      for (const auto& lane : named.lanes)
        name_actor(lane.address(), trace_role("ProcessorLane", lane.id()), named.node);
    },
    [](const node_unfit& unfit) {
      log_line(LogLevel::error, "worker node " + unfit.node + " cannot run this crawl's processing and left: " +
                                  unfit.reason);
    },
  };
}

}  // namespace

gatekeeper_actor spawn_gatekeeper(caf::actor_system& sys, node_welcome welcome, std::string catalogue) {
  return sys.spawn(gatekeeper_behavior, std::move(welcome), std::move(catalogue));
}

}  // namespace actorcrawl
