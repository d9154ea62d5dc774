// Which inspectors move messages between processes: CAF's serializers and
// deserializers, for which a page's links travel packed
// (core/crawl/link_packing.h). Every other inspector (deep_to_string in
// tests and logs) sees the fields as they are.
#pragma once

#include <type_traits>

#include <caf/deserializer.hpp>
#include <caf/error.hpp>
#include <caf/sec.hpp>
#include <caf/serializer.hpp>

namespace actorcrawl {

template <class Inspector>
inline constexpr bool moves_between_processes =
  std::is_base_of<caf::serializer, Inspector>::value || std::is_base_of<caf::deserializer, Inspector>::value;

// What a deserializer reports for packed links that do not decode.
inline caf::error packed_links_refused() { return caf::make_error(caf::sec::invalid_argument, "packed links"); }

}  // namespace actorcrawl
