// Compiled, never run, by the typed_interfaces test (typed_interfaces.sh):
// as it stands it must compile, and with each WRONG_* macro defined it must
// not, with CAF's error for that mistake. So a message sent to an actor
// whose interface (messages/interfaces.h) lacks it is caught by the
// compiler, and so is a reply taken as the wrong type.
#include <caf/all.hpp>

#include "messages/catalogue.h"

namespace actorcrawl {

// What the DeadLetterActor sends, through the typed roster.
void send_results(dead_letter_actor::pointer self, const topology& actors) {
  self->send(actors.storage, store_pages{});
  self->send(actors.frontier, url_failed{});
#ifdef WRONG_RECEIVER
  // pages_fetched belongs to the Frontier: the Storage does not accept it.
  self->send(actors.storage, pages_fetched{});
#endif
}

// What the HostSelector sends a FetchWorker: a blocking actor, behind its
// typed handle.
void lease(host_selector_actor::pointer self, const fetch_worker_actor& worker) {
  self->send(worker, fetch_jobs{});
  self->send(worker, drain_atom_v);
#ifdef WRONG_WORKER_MESSAGE
  // A page's outcome is the Processor's to send, and no worker takes it.
  self->send(worker, pages_processed{});
#endif
}

// A request and its reply, as the Frontier refills its window.
void refill(frontier_actor::pointer self, const topology& actors) {
  self->request(actors.storage, caf::infinite, load_frontier{}).then([](frontier_rows&) {});
#ifdef WRONG_REPLY
  // load_frontier is answered with frontier_rows, not fetched_links.
  self->request(actors.storage, caf::infinite, load_frontier{}).then([](fetched_links&) {});
#endif
}

}  // namespace actorcrawl
