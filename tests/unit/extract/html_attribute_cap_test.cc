// The cap on one tag's attributes: where it cuts, and that it reads tags
// where libxml2 does, so it never cuts text.
#include "core/extract/html_attribute_cap.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "core/extract/extraction_rules.h"

namespace actorcrawl {

TEST_CASE("attribute cap: a page with no tag over the cap is not copied", "[extract][attributes]") {
  CHECK_FALSE(cap_tag_attributes("<p class=a id=b>text</p>", 2));
  CHECK_FALSE(cap_tag_attributes("", 2));
  CHECK_FALSE(cap_tag_attributes("a < b and c <= d, <", 0));
}

TEST_CASE("attribute cap: attributes past the cap are cut up to the tag's end", "[extract][attributes]") {
  CHECK(cap_tag_attributes("<a x=1 y=\"2\" z='3' w=4 v>t</a>", 3) == "<a x=1 y=\"2\" z='3' >t</a>");
  CHECK(cap_tag_attributes("<br a b c/>", 1) == "<br a />");
  CHECK(cap_tag_attributes("<i a b c><i d e f>", 2) == "<i a b ><i d e >");
  CHECK(cap_tag_attributes("<a x=\">\" y z w>t", 2) == "<a x=\">\" y >t");
  CHECK(cap_tag_attributes("<a x = 'a b' y = z w v>t", 2) == "<a x = 'a b' y = z >t");
  CHECK(cap_tag_attributes("<a b c d", 1) == "<a b ");
}

TEST_CASE("attribute cap: tags end where libxml2 ends them", "[extract][attributes]") {
  // A quote that follows no '=' is a bogus attribute, which ends at '>'.
  CHECK_FALSE(cap_tag_attributes("<a \"x>y\" b c d>", 1));
  // Comments, declarations, processing instructions and end tags hold no
  // attributes; script and style hold text.
  CHECK_FALSE(cap_tag_attributes("<!-- <a b c d e> --><p>", 2));
  CHECK_FALSE(cap_tag_attributes("<!DOCTYPE html a b c d><?x a b c d?></a b c d e>", 2));
  CHECK_FALSE(cap_tag_attributes("<script>if (a<b c d e f) x</script><p>", 2));
  CHECK_FALSE(cap_tag_attributes("<STYLE>a<b c d e f {}</Style>", 2));
  CHECK(cap_tag_attributes("<script a b c>x<y z w v</script>", 2) == "<script a b >x<y z w v</script>");
  // A '/' not before '>' is a bogus attribute, and counts; the script is
  // not closed by it.
  CHECK(cap_tag_attributes("<script/ a b c><p a b c>", 2) == "<script/ a ><p a b c>");
  // A NUL ends a tag, as libxml2 reads it; an unterminated quote runs on.
  CHECK_FALSE(cap_tag_attributes(std::string("<a b c\0 d e f>", 14), 2));
  CHECK_FALSE(cap_tag_attributes("<a b=\"x c d e f>", 1));
  // Names start with a letter, '_', ':' or '.'.
  CHECK_FALSE(cap_tag_attributes("<1 a b c d>", 1));
  CHECK(cap_tag_attributes("<_x a b c>", 1) == "<_x a >");
}

TEST_CASE("attribute cap: a tag of 20,000 attributes still parses, keeping the first", "[extract][attributes]") {
  std::string page = "<a";
  for (int i = 0; i < 20000; ++i) page += " x" + std::to_string(i) + "=" + std::to_string(i);
  page += " href=/last>link</a><h1>after</h1>";
  const auto rules = ExtractionRules::compile(R"~([{"name": "t", "fields": {
      "first": {"css": "a::attr(x0)"}, "kept": {"xpath": "count(//a/@*)"},
      "href": {"css": "a::attr(href)"}, "after": {"css": "h1"}}}])~");
  const auto items = rules->extract("https://a.example/", "https://a.example/", page);
  REQUIRE(items.size() == 1);
  CHECK(items[0].json == R"({"first":"0","kept":256,"href":null,"after":"after"})");
}

}  // namespace actorcrawl
