// FetchWorker: runs many HTTP transfers at once on its own thread (libcurl's
// multi interface), retries transient failures with backoff, and reports
// each URL's outcome: the response to the Processor, the completion to the
// HostSelector, a final failure to the DeadLetterActor.
//
// It joins a crawl by sending worker_hello to a HostSelector and learns the
// rest of the topology and the fetch settings from the reply, so a worker in
// another process joins the same way.
#pragma once

#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "messages/interfaces.h"

namespace actorcrawl {

class CookieJar;

// Known by its typed handle, fetch_worker_actor (messages/interfaces.h).
// `local_processor`: on a worker node, the node's own Processor, which the
// worker sends its pages to instead of the coordinator's (whose handle the
// HostSelector's welcome carries). `cookies`: the process's cookie jar, or
// none when the crawl keeps no cookies.
fetch_worker_actor spawn_fetch_worker(caf::actor_system& sys, host_selector_actor host_selector, std::string name,
                                      int capacity, processor_actor local_processor = {},
                                      std::shared_ptr<const CookieJar> cookies = nullptr);

}  // namespace actorcrawl
