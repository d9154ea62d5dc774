// The typed interfaces (messages/interfaces.h) against the catalogue and the
// docs: every type an interface accepts or replies is in a type-ID block
// (so it can cross the middleman), and docs/architecture.md's interface
// table is exactly what the interfaces say, so the table cannot drift.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "messages/catalogue.h"
#include "architecture_doc.h"

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

}  // namespace

TEST_CASE("every type an interface accepts or replies is in the catalogue", "[messages]") {
  const auto all = interfaces();
  CHECK(all.size() == 9);
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
  const std::string doc = testing::architecture_doc();
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

namespace {

std::string trimmed(std::string x) {
  const auto b = x.find_first_not_of(' ');
  const auto e = x.find_last_not_of(' ');
  return b == std::string::npos ? std::string{} : x.substr(b, e - b + 1);
}

// The actors a "from → to" cell sends to, by interface: "Processor,
// DeadLetter → Storage; HostSelector → worker (inside ...)" is Storage and
// a worker. FetchWorkers (dynamically typed) and `self` are left out.
std::vector<std::string> receivers(std::string cell) {
  static const std::map<std::string, std::string> by_word = {
    {"Frontier", "FrontierActor"},   {"HostSelector", "HostSelectorActor"}, {"Processor", "ProcessorActor"},
    {"Storage", "StorageActor"},     {"DeadLetter", "DeadLetterActor"},     {"main", "crawl observer"},
    {"its lanes", "ProcessorLane"}};
  cell = std::regex_replace(cell, std::regex{"\\([^)]*\\)"}, "");
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto end = cell.find(';', start);
    const std::string clause = cell.substr(start, end == std::string::npos ? std::string::npos : end - start);
    // Every list after an arrow names receivers.
    for (auto arrow = clause.find("→"); arrow != std::string::npos; arrow = clause.find("→", arrow + 1)) {
      const auto next = clause.find("→", arrow + 1);
      const std::string list = clause.substr(arrow + 3, next == std::string::npos ? std::string::npos : next - arrow - 3);
      std::size_t p = 0;
      for (;;) {
        const auto comma = list.find(',', p);
        const std::string word = trimmed(list.substr(p, comma == std::string::npos ? std::string::npos : comma - p));
        if (auto it = by_word.find(word); it != by_word.end())
          out.push_back(it->second);
        if (comma == std::string::npos)
          break;
        p = comma + 1;
      }
    }
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return out;
}

// The messages a row is about: the first name of each comma-separated part
// ("`load_frontier` → `frontier_rows`" is about load_frontier).
std::vector<std::string> row_messages(const std::string& cell) {
  std::vector<std::string> out;
  std::size_t p = 0;
  for (;;) {
    const auto comma = cell.find(", ", p);
    const std::string part = cell.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
    std::smatch m;
    if (std::regex_search(part, m, std::regex{"`([A-Za-z_]+)`"}))
      out.push_back(m[1]);
    if (comma == std::string::npos)
      break;
    p = comma + 2;
  }
  return out;
}

bool accepts(const Interface& i, const std::string& message) {
  for (const auto& s : i.signatures)
    if (s.accepts.size() == 1 && s.accepts[0].name == message)
      return true;
  return false;
}

}  // namespace

// The message table says who sends what to whom, in words; each receiver
// it names must accept the message by its interface.
TEST_CASE("docs/architecture.md's message table sends each message to an actor that accepts it", "[messages]") {
  const std::string doc = testing::architecture_doc();
  const auto at = doc.find("| message | from → to | meaning |");
  REQUIRE(at != std::string::npos);
  std::map<std::string, Interface> by_actor;
  for (auto& i : interfaces())
    by_actor[i.actor] = i;
  std::istringstream rows(doc.substr(at));
  std::string line;
  std::getline(rows, line);  // header
  std::getline(rows, line);  // rule
  int checked = 0;
  while (std::getline(rows, line) && line.rfind("| ", 0) == 0) {
    std::vector<std::string> cells;
    std::size_t p = 1;
    for (auto bar = line.find(" | ", p); bar != std::string::npos; bar = line.find(" | ", p)) {
      cells.push_back(trimmed(line.substr(p, bar - p)));
      p = bar + 3;
    }
    REQUIRE(cells.size() >= 2);
    for (const auto& message : row_messages(cells[0]))
      for (const auto& actor : receivers(cells[1])) {
        INFO(line);
        INFO(actor << " should accept " << message);
        REQUIRE(by_actor.count(actor) == 1);
        CHECK(accepts(by_actor[actor], message));
        ++checked;
      }
  }
  CHECK(checked >= 30);
}
