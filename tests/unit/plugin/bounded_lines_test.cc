#include "core/plugin/bounded_lines.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace actorcrawl {
namespace {

struct Collected {
  std::vector<BoundedLineSplitter::Line> lines;
  BoundedLineSplitter::LineHandler handler() {
    return [this](BoundedLineSplitter::Line line) { lines.push_back(std::move(line)); };
  }
};

TEST_CASE("lines come whole, however the bytes are cut", "[plugin]") {
  BoundedLineSplitter splitter(100, 10);
  Collected c;
  const auto on_line = c.handler();
  splitter.feed("fir", on_line);
  splitter.feed("st\nsec", on_line);
  splitter.feed("ond\n\nthird", on_line);
  REQUIRE(c.lines.size() == 3);
  CHECK(c.lines[0].text == "first");
  CHECK(c.lines[1].text == "second");
  CHECK(c.lines[2].text.empty());
  CHECK_FALSE(c.lines[0].too_long);
  splitter.finish(on_line);
  REQUIRE(c.lines.size() == 4);
  CHECK(c.lines[3].text == "third");
  splitter.finish(on_line);
  CHECK(c.lines.size() == 4);
}

TEST_CASE("a line over the bound keeps its beginning and its length", "[plugin]") {
  BoundedLineSplitter splitter(8, 4);
  Collected c;
  const auto on_line = c.handler();
  splitter.feed("0123456", on_line);
  splitter.feed("789abcdef", on_line);
  splitter.feed("ghij\nok\n", on_line);
  REQUIRE(c.lines.size() == 2);
  CHECK(c.lines[0].too_long);
  CHECK(c.lines[0].text == "0123");
  CHECK(c.lines[0].length == 20);
  CHECK_FALSE(c.lines[1].too_long);
  CHECK(c.lines[1].text == "ok");
}

TEST_CASE("a line of exactly the bound is whole", "[plugin]") {
  BoundedLineSplitter splitter(4, 2);
  Collected c;
  splitter.feed("abcd\nabcde\n", c.handler());
  REQUIRE(c.lines.size() == 2);
  CHECK_FALSE(c.lines[0].too_long);
  CHECK(c.lines[0].text == "abcd");
  CHECK(c.lines[1].too_long);
  CHECK(c.lines[1].text == "ab");
}

}  // namespace
}  // namespace actorcrawl
