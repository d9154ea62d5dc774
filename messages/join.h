// How a worker process joins a coordinator (docs/deployment.md).
//
// The coordinator publishes a gatekeeper actor through the middleman. A
// worker node connects to it and sends, as its first and only request,
//
//   (std::string kJoinTag, std::string catalogue_digest, std::string node)
//
// built from CAF's own types only, so the request is understood whatever
// either side's message catalogue holds. The gatekeeper answers with the
// HostSelector's handle when the digests match, and with an error naming
// both digests when they do not; both sides log the refusal. The worker's
// FetchWorkers then register with the HostSelector by worker_hello, the
// same message local workers send.
#pragma once

namespace actorcrawl {

constexpr const char* kJoinTag = "actorcrawl-join/1";

}  // namespace actorcrawl
