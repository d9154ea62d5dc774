// The one guard on outside JSON (nesting, members of one object) and the
// spans of an object's members and an array's elements, read without
// building the document.
#include "core/web/json_guard.h"
#include "core/web/json_spans.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cpu_cost.h"

namespace actorcrawl {

TEST_CASE("json guard: nesting and object members are bounded, strings are skipped", "[json]") {
  CHECK(json_shape_problem(R"({"a": [1, {"b": 2}]})").empty());
  CHECK(json_shape_problem(std::string(64, '[') + std::string(64, ']')).empty());
  CHECK(json_shape_problem(std::string(65, '[') + std::string(65, ']')) == "nested deeper than 64 levels");
  CHECK(json_shape_problem(std::string(1000000, '[')) == "nested deeper than 64 levels");
  CHECK(json_shape_problem(R"(["[[[[[[", "\"[[[["])").empty());  // inside strings, escaped quotes too
  std::string wide = "{";
  for (int i = 0; i < 10001; ++i) wide += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
  wide += "}";
  CHECK(json_shape_problem(wide) == "an object of more than 10000 members");
  JsonShapeLimits many;
  many.max_object_members = 20000;
  CHECK(json_shape_problem(wide, many).empty());
  // Arrays may hold any number of elements; commas inside strings are no members.
  CHECK(json_shape_problem("[" + std::string(50000, '1').replace(1, 1, ",") + "]").empty());
  CHECK(json_shape_problem(R"({"a": "x,y,z"})").empty());
  CHECK(json_nests_within("[[1]]", 2));
  CHECK_FALSE(json_nests_within("[[[1]]]", 2));
}

TEST_CASE("json spans: members and elements as written, keys decoded", "[json]") {
  std::vector<std::string> seen;
  CHECK(for_each_json_member(R"( {"a": 1, "b\u0031" : {"x": [1, "]"]}, "c":"s,}"} )",
                             [&](const std::string& key, std::string_view value) {
                               seen.push_back(key + "=" + std::string(value));
                             }));
  CHECK(seen == std::vector<std::string>{"a=1", "b1={\"x\": [1, \"]\"]}", "c=\"s,}\""});
  seen.clear();
  CHECK(for_each_json_element(R"([ {"a": [1,2]} , "x\"]" ,3.5e2, null, [] ])",
                              [&](std::string_view value) { seen.emplace_back(value); }));
  CHECK(seen == std::vector<std::string>{R"({"a": [1,2]})", R"("x\"]")", "3.5e2", "null", "[]"});
  CHECK_FALSE(for_each_json_member("[1]", [](const std::string&, std::string_view) {}));
  CHECK_FALSE(for_each_json_element("{}", [](std::string_view) {}));
  seen.clear();
  CHECK(for_each_json_element("[]", [&](std::string_view value) { seen.emplace_back(value); }));
  CHECK(seen.empty());
}

// Both read a text once: a text 16 times longer costs about 16 times as
// much (against counting the text's bytes).
TEST_CASE("json guard and spans: cost linear in the text", "[json][linear]") {
  const auto array_of = [](std::size_t bytes) {
    std::string text = "[";
    while (text.size() < bytes) text += R"({"k": "v,]", "n": [1, 2, {"x": null}]},)";
    text.back() = ']';
    return text;
  };
  const auto small = array_of(testing::kLinearityBytes);
  const auto large = array_of(testing::kLinearityFactor * testing::kLinearityBytes);
  const auto count_cost = [](const std::string& t) {
    return testing::least_cpu_cost([&] {
      std::size_t n = 0;
      for (const char c : t) n += c == ',';
      volatile std::size_t sink = n;
      (void)sink;
    });
  };
  const double plain = testing::cost_growth(count_cost, small, large).ratio;
  const auto guard_cost = [](const std::string& t) {
    return testing::least_cpu_cost([&] { (void)json_shape_problem(t); });
  };
  const auto spans_cost = [](const std::string& t) {
    return testing::least_cpu_cost([&] {
      std::size_t n = 0;
      for_each_json_element(t, [&n](std::string_view) { ++n; });
      volatile std::size_t sink = n;
      (void)sink;
    });
  };
  const double guard = testing::cost_growth(guard_cost, small, large, plain).ratio;
  const double spans = testing::cost_growth(spans_cost, small, large, plain).ratio;
  WARN("from 256 KiB to 4 MiB the guard's cost grew " << guard / plain << " and the spans' " << spans / plain
                                                      << " times as much as counting bytes");
  CHECK(guard / plain <= testing::kMaxRelativeGrowth);
  CHECK(spans / plain <= testing::kMaxRelativeGrowth);
}

}  // namespace actorcrawl
