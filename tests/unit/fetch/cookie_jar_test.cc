#include "core/fetch/cookie_jar.h"

#include <catch2/catch.hpp>
#include <string>

#include "tests/unit/web/cpu_cost.h"

using namespace actorcrawl;

namespace {

constexpr const char* kSecret = "v-COOKIE-SECRET-0d1e";

std::string cookie_line(const std::string& domain, const std::string& name, const std::string& value,
                        const std::string& expiry = "0") {
  return domain + "\tFALSE\t/\tFALSE\t" + expiry + "\t" + name + "\t" + value;
}

bool holds(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos)
      return true;
  return false;
}

}  // namespace

TEST_CASE("cookie jar: a cookies.txt is read, comments and #HttpOnly_ lines as browsers write them",
          "[cookie_jar]") {
  CookieJar jar;
  jar.load_text("# Netscape HTTP Cookie File\n"
                "\n" +
                cookie_line("shop.test", "consent", "yes") + "\r\n" +
                cookie_line("#HttpOnly_shop.test", "session", kSecret, "4102444800") + "\n" +
                cookie_line(".other.test", "lang", "de"));
  const auto lines = jar.lines();
  CHECK(lines.size() == 3);
  CHECK(holds(lines, "consent\tyes"));
  CHECK(holds(lines, std::string{"session\t"} + kSecret));
  CHECK(holds(lines, "#HttpOnly_shop.test"));
  // What lines() gives, another jar takes back (the database's round trip).
  CookieJar again;
  again.load_lines(lines);
  CHECK(again.lines().size() == 3);
  // An expired cookie is not kept.
  CookieJar expired;
  expired.load_text(cookie_line("shop.test", "old", "x", "1000000000"));
  CHECK(expired.lines().empty());
}

TEST_CASE("cookie jar: a line that is no cookie is refused by number, its value unsaid, and nothing is added",
          "[cookie_jar]") {
  CHECK(CookieJar::line_problem(cookie_line("a.test", "n", "v")).empty());
  CHECK_FALSE(CookieJar::line_problem("a.test\tFALSE\t/\tFALSE\t0\tn").empty());
  CHECK_FALSE(CookieJar::line_problem("a.test\tMAYBE\t/\tFALSE\t0\tn\tv").empty());
  CHECK_FALSE(CookieJar::line_problem("a.test\tFALSE\t/\tno\t0\tn\tv").empty());
  CHECK_FALSE(CookieJar::line_problem("a.test\tFALSE\t/\tFALSE\tsoon\tn\tv").empty());
  CHECK_FALSE(CookieJar::line_problem("\tFALSE\t/\tFALSE\t0\tn\tv").empty());
  CHECK_FALSE(CookieJar::line_problem("a.test\tFALSE\t/\tFALSE\t0\t\tv").empty());
  CHECK_FALSE(CookieJar::line_problem(std::string("a.test\tFALSE\t/\tFALSE\t0\tn\tv\x01", 22)).empty());

  CookieJar jar;
  const std::string text = cookie_line("a.test", "good", "1") + "\n" + "a.test FALSE / FALSE 0 bad " + kSecret + "\n";
  try {
    jar.load_text(text);
    FAIL("a line with spaces for tabs was taken");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("line 2") != std::string::npos);
    CHECK(what.find(kSecret) == std::string::npos);
  }
  CHECK(jar.lines().empty());
  // From the database, a damaged row costs its own cookie only.
  jar.load_lines({"damaged", cookie_line("a.test", "good", "1")});
  CHECK(jar.lines().size() == 1);
}

TEST_CASE("cookie jar: reading a cookies.txt costs linear in its size", "[cookie_jar][linear]") {
  using namespace actorcrawl::testing;
  const auto file_of = [](std::size_t bytes, const std::string& line) {
    std::string text;
    while (text.size() < bytes)
      text += line + "\n";
    return text;
  };
  // Checking lines is the parser: the jar's own inserts are curl's, and
  // refused lines leave it empty, so this measures the reading alone.
  const auto cost = [](const std::string& text) {
    return least_cpu_cost([&] {
      try {
        CookieJar jar;
        jar.load_text(text + "bad line\n");
      } catch (const std::invalid_argument&) {
      }
    }, 3);
  };
  const std::size_t small = kLinearityBytes, large = kLinearityBytes * kLinearityFactor;
  const std::string plain = cookie_line("a.test", "n", "v");
  const auto baseline = cost_growth(cost, file_of(small, plain), file_of(large, plain));
  struct Shape {
    const char* name;
    std::string line;
  };
  const Shape shapes[] = {
    {"comments", "#" + std::string(200, 'c')},
    {"one long value", cookie_line("a.test", "n", std::string(small / 2, 'v'))},
    {"tabs", std::string(100, '\t')},
    {"blank lines", ""},
  };
  for (const auto& shape : shapes) {
    INFO(shape.name << "; a plain file grew " << baseline.ratio << " times");
    const auto g = cost_growth(cost, file_of(small, shape.line), file_of(large, shape.line), baseline.ratio);
    CHECK(g.ratio / baseline.ratio <= kMaxRelativeGrowth);
  }
}
