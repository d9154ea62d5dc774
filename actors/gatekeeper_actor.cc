#include "actors/gatekeeper_actor.h"

#include <caf/all.hpp>

#include "core/report/console_log.h"
#include "messages/catalogue.h"
#include "messages/join.h"

namespace actorcrawl {

std::string catalogue_mismatch_text(const std::string& coordinator_digest, const std::string& worker_digest) {
  return "message catalogue mismatch: the coordinator's is " + coordinator_digest + ", the worker's is " +
         worker_digest + "; run the same actorcrawl build on every node";
}

namespace {

gatekeeper_actor::behavior_type gatekeeper_behavior(gatekeeper_actor::pointer self, host_selector_actor host_selector,
                                                    std::string catalogue) {
  return {
    [=](const std::string& tag, const std::string& digest, const std::string& node) -> caf::result<host_selector_actor> {
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
      return host_selector;
    },
  };
}

}  // namespace

gatekeeper_actor spawn_gatekeeper(caf::actor_system& sys, host_selector_actor host_selector, std::string catalogue) {
  return sys.spawn(gatekeeper_behavior, std::move(host_selector), std::move(catalogue));
}

}  // namespace actorcrawl
