// The typed interfaces (messages/interfaces.h) against the catalogue and the
// docs: every type an interface accepts or replies is in a type-ID block
// (so it can cross the middleman), and docs/architecture.md's interface
// table is exactly what the interfaces say, so the table cannot drift.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "messages/catalogue.h"

using namespace actorcrawl;

namespace {

// "`tick_atom`" for the atom whose text is "tick".
std::string atom_name(caf::atom_value value) {
#define ACTORCRAWL_ATOM_NAME(name, text) \
  if (value == name::value)              \
    return #name;
  ACTORCRAWL_ATOMS(ACTORCRAWL_ATOM_NAME)
#undef ACTORCRAWL_ATOM_NAME
  return "atom(" + caf::to_string(value) + ")";
}

struct TypeInfo {
  std::string name;
  bool in_catalogue = false;  // a type ID of actorcrawl's block or CAF's own
};

template <class T>
TypeInfo info() {
  if constexpr (caf::is_atom_constant<T>::value) {
    return {atom_name(T::value), true};
  } else if constexpr (std::is_void<T>::value) {
    return {"", true};
  } else if constexpr (caf::detail::is_complete<caf::type_id<T>>::value) {
    std::string name = caf::type_name<T>::value;
    for (auto p = name.find("actorcrawl::"); p != std::string::npos; p = name.find("actorcrawl::"))
      name.erase(p, 12);
    const auto id = caf::type_id<T>::value;
    const bool ours = id >= caf::id_block::actorcrawl::begin && id < caf::id_block::actorcrawl::end;
    const bool cafs = id < caf::first_custom_type_id;
    return {name, ours || cafs};
  } else {
    return {typeid(T).name(), false};
  }
}

struct Signature {
  std::vector<TypeInfo> accepts;
  std::vector<TypeInfo> replies;
};

template <class... Is, class... Os>
Signature describe(caf::typed_mpi<caf::detail::type_list<Is...>, caf::output_tuple<Os...>>) {
  Signature s{{info<Is>()...}, {}};
  for (auto& t : std::vector<TypeInfo>{info<Os>()...})
    if (!t.name.empty())
      s.replies.push_back(t);
  return s;
}

struct Interface {
  std::string actor;
  std::vector<Signature> signatures;
};

template <class... Sigs>
std::vector<Signature> signatures(caf::detail::type_list<Sigs...>) {
  return {describe(Sigs{})...};
}

std::vector<Interface> interfaces() {
  std::vector<Interface> out;
#define ACTORCRAWL_DESCRIBE(handle, text) out.push_back({text, signatures(typename handle::signatures{})});
  ACTORCRAWL_INTERFACES(ACTORCRAWL_DESCRIBE)
#undef ACTORCRAWL_DESCRIBE
  return out;
}

std::string joined(const std::vector<TypeInfo>& types) {
  std::string out;
  for (const auto& t : types)
    out += (out.empty() ? "`" : ", `") + t.name + "`";
  return out;
}

// The table as docs/architecture.md must hold it.
std::string interface_table() {
  std::string out = "| actor | accepts | replies |\n| --- | --- | --- |\n";
  for (const auto& i : interfaces()) {
    bool first = true;
    for (const auto& s : i.signatures) {
      out += "| " + (first ? i.actor : std::string{}) + " | " + joined(s.accepts) + " | " + joined(s.replies) + " |\n";
      first = false;
    }
  }
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

TEST_CASE("every type an interface accepts or replies is in the catalogue", "[messages]") {
  const auto all = interfaces();
  CHECK(all.size() == 8);
  for (const auto& i : all) {
    INFO(i.actor);
    CHECK_FALSE(i.signatures.empty());
    for (const auto& s : i.signatures) {
      for (const auto& t : s.accepts) {
        INFO("accepts " << t.name);
        CHECK(t.in_catalogue);
      }
      for (const auto& t : s.replies) {
        INFO("replies " << t.name);
        CHECK(t.in_catalogue);
      }
    }
  }
}

TEST_CASE("no two signatures of an interface accept the same message", "[messages]") {
  for (const auto& i : interfaces()) {
    std::vector<std::string> seen;
    for (const auto& s : i.signatures) {
      const auto key = joined(s.accepts);
      INFO(i.actor << " " << key);
      CHECK(std::count(seen.begin(), seen.end(), key) == 0);
      seen.push_back(key);
    }
  }
}

// The table between the markers is generated from the interfaces: when an
// interface changes, run this test with ACTORCRAWL_INTERFACE_TABLE=FILE and
// paste FILE's table between the markers.
TEST_CASE("docs/architecture.md's interface table is the interfaces", "[messages]") {
  const std::string doc = read_text(std::string{ACTORCRAWL_SOURCE_DIR} + "/docs/architecture.md");
  const std::string begin = "<!-- interfaces: generated from messages/interfaces.h -->\n";
  const std::string end = "<!-- interfaces: end -->";
  const auto from = doc.find(begin);
  REQUIRE(from != std::string::npos);
  const auto to = doc.find(end, from);
  REQUIRE(to != std::string::npos);
  const std::string expected = interface_table();
  if (const char* out = std::getenv("ACTORCRAWL_INTERFACE_TABLE"))
    std::ofstream{out} << expected;
  INFO("expected table:\n" << expected);
  CHECK(doc.substr(from + begin.size(), to - from - begin.size()) == expected);
}
