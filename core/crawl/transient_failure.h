// Which failures are worth another try later, and when.
//
// A URL that fails with a definite answer (a 4xx page, robots.txt
// disallowing it, a scope or trap rule, a private address) is settled for
// good: asking again would get the same answer. A failure that says nothing
// about the URL itself — the name did not resolve, the connection was
// refused or timed out, the server answered 5xx or 429, robots.txt could not
// be read — is transient: the worker retries it at once with backoff
// (retry_attempts), and when those run out the URL is parked, not failed.
// A parked URL is offered again after the host backoff (doubling with each
// park in the run) if the crawl is still going, and on the next run
// otherwise. docs/schema.md lists every reason and which kind it is.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

namespace actorcrawl {

// True for a reason that may not hold next time: dns_failure,
// connect_failed, timeout, connection_reset, transfer_failed, http_5xx,
// http_429, robots_unreachable. A protocol_error (the server speaks broken
// HTTP) is an answer, and final; so are every other reason and every rule.
bool is_transient_failure(std::string_view reason);

// How long a URL parked after its `attempt`-th lease in this run waits
// before it is offered again: `host_backoff`, doubled for every earlier
// attempt, at most 64 times `host_backoff`.
std::chrono::milliseconds park_delay(std::chrono::milliseconds host_backoff, std::uint32_t attempt);

}  // namespace actorcrawl
