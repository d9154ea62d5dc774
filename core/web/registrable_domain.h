// The registrable domain ("root domain") of a host, from the public suffix
// list (libpsl's built-in copy): a.b.co.uk -> b.co.uk, www.example.com ->
// example.com. IP addresses and single-label names (localhost) are their own
// registrable domain, so loopback test webs behave like separate sites.
#pragma once

#include <string>
#include <string_view>

namespace actorcrawl {

std::string registrable_domain(std::string_view host);

}  // namespace actorcrawl
