#include "messages/catalogue.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include <caf/deep_to_string.hpp>
#include <caf/io/middleman.hpp>

#include "core/crawl/record_packing.h"

namespace actorcrawl {

namespace {

// One line per type: "<id> <name> <default value>". The default value,
// printed by CAF's inspector, spells out every field of the type and of the
// types it nests, so adding, removing or retyping a field changes the line.
template <caf::type_id_t First, caf::type_id_t... Is>
std::string describe_types(std::integer_sequence<caf::type_id_t, Is...>) {
  std::string out;
  ((out += std::to_string(First + Is) + " " + caf::type_name_by_id<First + Is>::value + " " +
           caf::deep_to_string(typename caf::type_by_id<First + Is>::type{}) + "\n"),
   ...);
  return out;
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

void register_messages(caf::actor_system_config& config) {
  config.add_message_types<caf::id_block::actorcrawl>();
  config.load<caf::io::middleman>();
}

std::string catalogue_digest() {
  using block = caf::id_block::actorcrawl;
  static const std::string digest = [] {
    const std::string text =
      describe_types<block::begin>(std::make_integer_sequence<caf::type_id_t, block::end - block::begin>{}) +
      "packing format " + std::to_string(kPackingFormat) + "\n";
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(text)));
    return std::string{hex};
  }();
  return digest;
}

}  // namespace actorcrawl
