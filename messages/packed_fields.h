// Which inspectors move messages between processes: CAF's serializers and
// deserializers, for which a page's row, a lease and a page's followed
// links travel packed (core/crawl/record_packing.h,
// core/crawl/link_packing.h). Every other inspector (deep_to_string in
// tests and logs) sees the fields as they are.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include <caf/deserializer.hpp>
#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/save_callback.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/sec.hpp>
#include <caf/serializer.hpp>

#include "core/crawl/link_packing.h"

namespace actorcrawl {

template <class Inspector>
inline constexpr bool moves_between_processes =
  std::is_base_of<caf::serializer, Inspector>::value || std::is_base_of<caf::deserializer, Inspector>::value;

// `value` as one packed string, for a serializer or a deserializer:
// `pack(value)` fills it just before it is written, `unpack(packed, value)`
// reads it just after; bytes that do not unpack are refused with an error
// naming `what` (the whole message is then refused, never half read).
template <class Inspector, class Value, class Pack, class Unpack>
typename Inspector::result_type inspect_packed(Inspector& f, const char* what, Value& value, Pack pack,
                                               Unpack unpack) {
  static_assert(moves_between_processes<Inspector>);
  std::string packed;
  return f(caf::meta::type_name(what), caf::meta::save_callback([&]() -> caf::error {
             packed = pack(value);
             return caf::none;
           }),
           packed, caf::meta::load_callback([&]() -> caf::error {
             if (unpack(packed, value))
               return caf::none;
             return caf::make_error(caf::sec::invalid_argument, std::string("packed ") + what);
           }));
}

// A page's followed links as a field: packed between processes, the links
// themselves for every other inspector.
struct PackedFollowedLinks {
  std::vector<FollowedLink>& links;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, PackedFollowedLinks& x) {
  if constexpr (moves_between_processes<Inspector>) {
    return inspect_packed(
      f, "FollowedLinks", x.links, [](const std::vector<FollowedLink>& links) { return pack_followed_links(links); },
      [](const std::string& packed, std::vector<FollowedLink>& links) { return unpack_followed_links(packed, links); });
  } else {
    return f(x.links);
  }
}

}  // namespace actorcrawl
