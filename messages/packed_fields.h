// Which inspectors move messages between processes: CAF's serializers and
// deserializers, for which a page's links travel packed
// (core/crawl/link_packing.h). Every other inspector (deep_to_string in
// tests and logs) sees the fields as they are.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <caf/deserializer.hpp>
#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/save_callback.hpp>
#include <caf/sec.hpp>
#include <caf/serializer.hpp>

#include "core/crawl/link_packing.h"

namespace actorcrawl {

template <class Inspector>
inline constexpr bool moves_between_processes =
  std::is_base_of<caf::serializer, Inspector>::value || std::is_base_of<caf::deserializer, Inspector>::value;

// What a deserializer reports for packed links that do not decode.
inline caf::error packed_links_refused() { return caf::make_error(caf::sec::invalid_argument, "packed links"); }

// The packing of each kind of link (core/crawl/link_packing.h).
inline std::string pack_links(const LinkList& links) { return pack_link_rows(links); }
inline bool unpack_links(std::string_view packed, LinkList& links) { return unpack_link_rows(packed, links); }
inline std::string pack_links(const std::vector<FollowedLink>& links) { return pack_followed_links(links); }
inline bool unpack_links(std::string_view packed, std::vector<FollowedLink>& links) {
  return unpack_followed_links(packed, links);
}

// A message's links (a LinkList, or a vector of FollowedLink), as a field:
// one packed string between processes (filled just before the message is
// written, read just after it is), the links themselves for every other
// inspector.
template <class Links>
struct PackedLinks {
  Links& links;
};

template <class Inspector, class Links>
typename Inspector::result_type inspect(Inspector& f, PackedLinks<Links>& x) {
  if constexpr (moves_between_processes<Inspector>) {
    std::string packed;
    return f(caf::meta::save_callback([&]() -> caf::error {
               packed = pack_links(x.links);
               return caf::none;
             }),
             packed, caf::meta::load_callback([&]() -> caf::error {
               return unpack_links(packed, x.links) ? caf::error{} : packed_links_refused();
             }));
  } else {
    return f(x.links);
  }
}

}  // namespace actorcrawl
