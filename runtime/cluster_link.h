// What every node of a multi-process crawl sets up the same way: the actor
// system's middleman (heartbeats, the timeout that declares a silent peer
// gone, TLS when configured), publishing the coordinator's gatekeeper, and
// a worker's connection to it. Plain TCP and TLS (caf_openssl) differ only
// in which of CAF's two functions is called; nothing above this file knows.
#pragma once

#include <cstdint>
#include <string>

#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "core/config/crawl_config.h"
#include "messages/interfaces.h"

namespace actorcrawl {

// register_messages() plus the middleman and TLS settings of `config`.
void configure_node(caf::actor_system_config& cfg, const CrawlConfig& config);

bool uses_tls(const CrawlConfig& config);

// Publishes `gatekeeper` at `where`; returns the bound port (`where.port`
// may be 0: the system picks one).
caf::expected<std::uint16_t> publish_gatekeeper(const gatekeeper_actor& gatekeeper, const NodeAddress& where,
                                                bool tls);

// Why publish_gatekeeper() failed at `where`, in words. CAF says only that
// the socket could not be opened; the same bind, tried again here, has the
// system's reason ("Address already in use": another process listens
// there, and CAF's SO_REUSEADDR does not let two listen on one port).
std::string why_publish_failed(const NodeAddress& where, const caf::error& error);

// The coordinator's gatekeeper, as a proxy to the remote actor. The
// middleman checks the published interface against gatekeeper_actor.
caf::expected<gatekeeper_actor> connect_to_coordinator(caf::actor_system& sys, const NodeAddress& where, bool tls);

std::string host_name();

// "host:pid" unless node_id is configured: names this process in logs and
// traces.
std::string node_name(const CrawlConfig& config);

}  // namespace actorcrawl
