#include "core/web/registrable_domain.h"

#include "core/web/ascii.h"
#include "core/web/ip_literal.h"

#include <libpsl.h>

namespace actorcrawl {

namespace {

bool is_ip_address(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') return true;
  return parse_ip_literal(host).has_value();
}

using ascii::lowercase;

}  // namespace

std::string registrable_domain(std::string_view host) {
  std::string lower = lowercase(host);
  // The public suffix list knows nothing of addresses ("127.0.0.2" would give
  // "0.2"), and a single label has no suffix to strip.
  if (is_ip_address(lower) || lower.find('.') == std::string::npos) return lower;
  const psl_ctx_t* psl = psl_builtin();
  if (psl == nullptr) return lower;
  // Null when the host is itself a public suffix ("co.uk", "github.io"):
  // then the host is the narrowest domain there is.
  const char* domain = psl_registrable_domain(psl, lower.c_str());
  return domain == nullptr ? lower : std::string(domain);
}

}  // namespace actorcrawl
