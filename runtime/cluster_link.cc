#include "runtime/cluster_link.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/openssl/remote_actor.hpp>

#include "core/setup/crawl_setup.h"
#include "core/report/console_log.h"
#include "messages/catalogue.h"

namespace actorcrawl {

bool uses_tls(const CrawlConfig& config) {
  return !config.tls_cert.empty() && !config.tls_key.empty() && !config.tls_ca.empty();
}

void configure_node(caf::actor_system_config& cfg, const CrawlConfig& config) {
  register_messages(cfg);
  // CAF's default work-stealing scheduler keeps each idle thread polling
  // (hundreds of tries, then 50 us naps) for tens of milliseconds after
  // every job: with messages arriving every few milliseconds, as a
  // coordinator's or a small node's do, its threads never rest, and a
  // coordinator spent 1.5 ms of CPU a page on it. The sharing scheduler's
  // threads sleep on a condition variable until work comes; measured on the
  // synthetic web it is also faster for a whole crawl in one process
  // (docs/performance.md, "The scheduler").
  cfg.set("scheduler.policy", caf::atom("sharing"));
  cfg.set("scheduler.max-threads", scheduler_threads(config));
  // Without heartbeats a stopped (SIGSTOP) or cut-off peer is never noticed:
  // its TCP connection just stays quiet. With them, a peer silent for
  // peer_timeout is dropped and every monitor of its actors fires.
  cfg.set("middleman.heartbeat-interval",
          caf::timespan{std::chrono::milliseconds{config.heartbeat_interval_ms}});
  cfg.set("middleman.connection-timeout", caf::timespan{std::chrono::milliseconds{config.peer_timeout_ms}});
  if (uses_tls(config)) {
    cfg.openssl_certificate = config.tls_cert;
    cfg.openssl_key = config.tls_key;
    cfg.openssl_cafile = config.tls_ca;
    cfg.load<caf::openssl::manager>();
  }
}

caf::expected<std::uint16_t> publish_gatekeeper(const gatekeeper_actor& gatekeeper, const NodeAddress& where,
                                                bool tls) {
  if (tls)
    return caf::openssl::publish(gatekeeper, where.port, where.host.c_str(), true);
  return gatekeeper.home_system().middleman().publish(gatekeeper, where.port, where.host.c_str(), true);
}

std::string why_publish_failed(const NodeAddress& where, const caf::error& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(where.port);
  if (::getaddrinfo(where.host.empty() ? nullptr : where.host.c_str(), port.c_str(), &hints, &found) != 0 || !found)
    return to_string(error);
  std::string reason;
  const int fd = ::socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  if (fd >= 0) {
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, found->ai_addr, found->ai_addrlen) != 0 || ::listen(fd, 1) != 0)
      reason = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return reason.empty() ? to_string(error) : reason;
}

caf::expected<gatekeeper_actor> connect_to_coordinator(caf::actor_system& sys, const NodeAddress& where,
                                                       bool tls) {
  if (tls)
    return caf::openssl::remote_actor<gatekeeper_actor>(sys, where.host, where.port);
  return sys.middleman().remote_actor<gatekeeper_actor>(where.host, where.port);
}

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0)
    return "localhost";
  return buf;
}

std::string node_name(const CrawlConfig& config) {
  if (!config.node_id.empty())
    return config.node_id;
  return host_name() + ":" + std::to_string(::getpid());
}

}  // namespace actorcrawl
