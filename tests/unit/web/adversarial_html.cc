#include "adversarial_html.h"

#include <random>

namespace actorcrawl::testing {
namespace {

using Rng = std::mt19937;

// One repeated piece of a construct; `second_half` is true once half the
// page is written, for constructs that first build a deep stack and then
// attack it (stray end tags, table parts, anchors...).
using Unit = std::string (*)(Rng& rng, bool second_half);

std::string pick(Rng& rng, std::initializer_list<const char*> options) {
  std::uniform_int_distribution<std::size_t> d(0, options.size() - 1);
  return *(options.begin() + d(rng));
}

std::string number(Rng& rng) { return std::to_string(rng() % 100000); }

std::string build(std::size_t bytes, std::uint32_t seed, std::string_view prefix, Unit unit,
                  std::string_view suffix = "") {
  Rng rng(seed);
  std::string out = "<!DOCTYPE html><html><head><title>adversarial</title></head><body>";
  out += prefix;
  const std::size_t body_end = bytes > out.size() + suffix.size() + 32 ? bytes - suffix.size() - 32 : out.size();
  const std::size_t half = out.size() + (body_end - out.size()) / 2;
  while (out.size() < body_end) out += unit(rng, out.size() >= half);
  out += suffix;
  out += "<a href=\"/after\">after</a>";
  while (out.size() < bytes) out.push_back(' ');
  return out;
}

// --- Units ---------------------------------------------------------------

std::string block(Rng& rng, bool) { return "<" + pick(rng, {"div", "section", "article", "aside", "nav"}) + ">"; }
std::string self_closing_block(Rng& rng, bool) {
  return "<" + pick(rng, {"div", "section", "article", "aside"}) + "/>";
}
std::string inline_open(Rng& rng, bool) { return "<" + pick(rng, {"span", "abbr", "cite", "data", "kbd"}) + ">"; }
std::string custom_open(Rng& rng, bool) { return "<x-el" + number(rng) + ">"; }
// Half the page opens blocks, the other half is end tags that close none
// of them: each one walks the whole stack in a naive tree builder.
std::string blocks_then_stray_ends(Rng& rng, bool second_half) {
  if (!second_half) return block(rng, false);
  return "</" + pick(rng, {"em", "x-y", "strong", "q", "bdo"}) + ">";
}
std::string blocks_then_anchors(Rng& rng, bool second_half) {
  if (!second_half) return block(rng, false);
  return "<a href=\"/a" + number(rng) + "\">x</a>";
}
std::string blocks_then_paragraphs(Rng& rng, bool second_half) {
  if (!second_half) return block(rng, false);
  return "<p>" + pick(rng, {"x", "y", "z"});
}
std::string blocks_then_table_parts(Rng& rng, bool second_half) {
  if (!second_half) return block(rng, false);
  return "<" + pick(rng, {"tr", "td", "th", "tbody", "caption"}) + ">";
}
std::string blocks_then_closing_blocks(Rng& rng, bool second_half) {
  if (!second_half) return inline_open(rng, false);
  return "<" + pick(rng, {"div", "p", "ul", "h2"}) + "></" + pick(rng, {"div", "p", "ul", "h2"}) + ">";
}
std::string svg_group(Rng& rng, bool) { return "<" + pick(rng, {"g", "symbol", "text", "tspan"}) + ">"; }
std::string svg_groups_then_stray_ends(Rng& rng, bool second_half) {
  if (!second_half) return svg_group(rng, false);
  return "</" + pick(rng, {"rect", "path", "x-y", "circle"}) + ">";
}
std::string math_row(Rng& rng, bool) { return "<" + pick(rng, {"mrow", "mstyle", "mfrac", "msqrt"}) + ">"; }
std::string nested_svg_g(Rng& rng, bool) { return pick(rng, {"<svg><g>", "<svg><g><g>"}); }
std::string nested_foreign_object(Rng&, bool) { return "<svg><foreignObject><div>"; }

// Misnested formatting elements: the adoption agency algorithm's loops.
std::string misnested_formatting(Rng& rng, bool) {
  const std::string a = pick(rng, {"b", "i", "em", "strong", "u"});
  const std::string b = pick(rng, {"b", "i", "em", "strong", "u"});
  return "<" + a + "><" + b + ">x</" + a + ">y</" + b + ">";
}
std::string formatting_with_furthest_block(Rng& rng, bool) {
  return "<" + pick(rng, {"b", "i", "em"}) + "><div>x</" + pick(rng, {"b", "i", "em"}) + ">";
}
// Distinct attributes defeat the "Noah's Ark" limit of three identical
// entries, so the list of active formatting elements keeps growing.
std::string unclosed_formatting(Rng& rng, bool) {
  return "<" + pick(rng, {"b", "i", "em", "font", "code"}) + " class=\"c" + number(rng) + "\">";
}
// Formatting elements left open in a paragraph, then many paragraphs with
// text: each text run "reconstructs the active formatting elements".
std::string formatting_then_text_paragraphs(Rng& rng, bool second_half) {
  if (!second_half) return unclosed_formatting(rng, false);
  return "</p><p>" + pick(rng, {"t", "u", "v"});
}
std::string anchors_unclosed(Rng& rng, bool) { return "<a href=\"/u" + number(rng) + "\">x"; }
std::string nobr(Rng& rng, bool) { return pick(rng, {"<nobr>x", "<nobr>y<nobr>"}); }
std::string buttons(Rng&, bool) { return "<button>"; }
std::string forms(Rng&, bool) { return "<form>"; }
std::string list_items(Rng& rng, bool) { return pick(rng, {"<li>", "<dd>", "<dt>", "<ul><li>"}); }
std::string headings(Rng& rng, bool) { return "<h" + pick(rng, {"1", "2", "3", "4", "5", "6"}) + ">"; }
std::string paragraphs_in_buttons(Rng&, bool) { return "<button><p>"; }

std::string tables_in_tables(Rng& rng, bool) { return pick(rng, {"<table>", "<table><caption>"}); }
std::string tables_in_cells(Rng& rng, bool) { return pick(rng, {"<table><tr><td>", "<table><tbody><tr><th>"}); }
std::string table_parts(Rng& rng, bool) { return "<" + pick(rng, {"tr", "td", "th", "tbody", "thead", "caption"}) + ">"; }
std::string foster_parented(Rng& rng, bool) { return "<table>" + pick(rng, {"<div>", "<span>x", "<b>"}); }
std::string selects(Rng& rng, bool) { return pick(rng, {"<select>", "<select><option>", "<select><optgroup>"}); }
std::string options(Rng& rng, bool) { return pick(rng, {"<option>", "<optgroup>", "<option><a href=/o>"}); }
std::string templates(Rng& rng, bool) { return pick(rng, {"<template>", "<template><div>", "<template><table>"}); }
std::string templates_in_select(Rng& rng, bool) { return pick(rng, {"<select><template>", "<template><select>"}); }

std::string end_tag_run(Rng& rng, bool) {
  return "</" + pick(rng, {"div", "span", "a", "table", "select", "template", "svg", "math", "li"}) + ">";
}
std::string end_p_run(Rng&, bool) { return "</p>"; }
std::string end_br_run(Rng&, bool) { return "</br>"; }
std::string end_tags_with_attributes(Rng& rng, bool) { return "</div class=\"c" + number(rng) + "\" />"; }

std::string comment_run(Rng& rng, bool) { return pick(rng, {"<!---->", "<!-- x -->", "<!-->", "<!--->", "<!-- --!>"}); }
std::string dashes(Rng& rng, bool) { return pick(rng, {"--", "-- ", "--!", "---x"}); }
std::string bogus_comments(Rng& rng, bool) { return pick(rng, {"<?x>", "<!x>", "</ x>", "<!DOCTYPE x>"}); }
std::string cdata_sections(Rng& rng, bool) { return pick(rng, {"<![CDATA[x]]>", "<![CDATA[]]>", "<![CDATA[<a href=/c>]]>"}); }
std::string cdata_brackets(Rng& rng, bool) { return pick(rng, {"]]", "]", "]]]"}); }
std::string almost_end_tags(Rng& rng, bool) { return pick(rng, {"</scrip", "</script", "</", "<!--<script>", "-->"}); }
std::string almost_title_end(Rng& rng, bool) { return pick(rng, {"</titl", "</title", "</", "&amp;"}); }
std::string lone_lt(Rng& rng, bool) { return pick(rng, {"<", "< ", "<<", "<=", "<3"}); }

std::string named_refs(Rng& rng, bool) { return pick(rng, {"&amp;", "&lt;", "&notin;", "&not", "&ampx", "&CounterClockwiseContourIntegral;"}); }
std::string unknown_refs(Rng& rng, bool) { return "&" + pick(rng, {"abcdefghijklmnopqrstuvwxyzabcdefghij", "zz", "x1"}) + number(rng); }
std::string numeric_refs(Rng& rng, bool) { return pick(rng, {"&#0000000000000000000000065;", "&#x000000000000000041;", "&#99999999999;", "&#x;", "&#"}); }
std::string href_refs(Rng& rng, bool) {
  return "<a href=\"/r?" + pick(rng, {"&amp;", "&lt", "&notin", "&#38;", "&#x26"}) + number(rng) + "\">r</a>";
}

std::string many_attributes_unit(Rng& rng, bool) { return " a" + number(rng) + "=\"" + number(rng) + "\""; }
std::string duplicate_attributes_unit(Rng& rng, bool) { return pick(rng, {" href=\"/dup\"", " rel=nofollow", " href"}); }
std::string long_value_unit(Rng& rng, bool) { return pick(rng, {"abcdefgh", "&amp;x", "/path/"}); }
std::string many_attribute_tags(Rng& rng, bool) {
  std::string tag = "<" + pick(rng, {"a", "div", "meta", "link"});
  for (int i = 0; i < 40; ++i) tag += " x" + std::to_string(i) + "=" + number(rng);
  return tag + ">";
}

std::string random_mix(Rng& rng, bool second_half) {
  static constexpr Unit kUnits[] = {block, inline_open, misnested_formatting, unclosed_formatting, tables_in_tables,
                                    table_parts, selects, templates, end_tag_run, svg_group, math_row,
                                    comment_run, named_refs, anchors_unclosed, nobr, list_items};
  std::uniform_int_distribution<std::size_t> d(0, std::size(kUnits) - 1);
  std::string out = kUnits[d(rng)](rng, second_half);
  if (rng() % 16 == 0) out += pick(rng, {"<svg><foreignObject>", "<math><mi>", "<math><annotation-xml encoding=text/html>"});
  return out;
}

// --- Pages ---------------------------------------------------------------

template <Unit U>
std::string page_of(std::size_t bytes, std::uint32_t seed) {
  return build(bytes, seed, "", U);
}

// One tag whose attributes fill the page.
std::string one_tag_page(std::size_t bytes, std::uint32_t seed, std::string_view open, Unit attribute,
                         std::string_view close = ">") {
  Rng rng(seed);
  std::string out = "<!DOCTYPE html><title>adversarial</title>";
  out += open;
  while (out.size() + 64 < bytes) out += attribute(rng, false);
  out += close;
  out += "<a href=\"/after\">after</a>";
  while (out.size() < bytes) out.push_back(' ');
  return out;
}

// The integration points of SVG and MathML, where HTML content resumes.
constexpr std::string_view kIntegrationPoints[] = {
  "<svg><foreignObject>",
  "<svg><desc>",
  "<svg><title>",
  "<math><annotation-xml encoding=\"text/html\">",
  "<math><mi>",
  "<math><mo>",
  "<math><mn>",
  "<math><ms>",
  "<math><mtext>",
};

template <std::size_t Point, Unit U>
std::string at_integration_point(std::size_t bytes, std::uint32_t seed) {
  return build(bytes, seed, kIntegrationPoints[Point], U);
}

#define ACTORCRAWL_AT_EVERY_POINT(label, unit)                                   \
  {"foreignObject+" label, &at_integration_point<0, unit>},                    \
  {"svg-desc+" label, &at_integration_point<1, unit>},                         \
  {"svg-title+" label, &at_integration_point<2, unit>},                        \
  {"annotation-xml+" label, &at_integration_point<3, unit>},                   \
  {"mi+" label, &at_integration_point<4, unit>},                               \
  {"mo+" label, &at_integration_point<5, unit>},                               \
  {"mn+" label, &at_integration_point<6, unit>},                               \
  {"ms+" label, &at_integration_point<7, unit>},                               \
  {"mtext+" label, &at_integration_point<8, unit>}

}  // namespace

std::string plain_page(std::size_t bytes, std::uint32_t seed) {
  return build(bytes, seed, "<div class=\"content\">", [](Rng& rng, bool) {
    std::string p = "<p>Some ordinary text about a subject, with <a href=\"/article/" + number(rng) +
                    "\">a link</a> and <em>emphasis</em>.</p>\n";
    if (rng() % 4 == 0) p += "<ul><li><a href=\"/list/" + number(rng) + "\">item</a></li><li>other</li></ul>\n";
    if (rng() % 8 == 0) p += "<div class=\"box\"><h2>Heading</h2><img src=\"/i.png\" alt=\"\"></div>\n";
    return p;
  }, "</div>");
}

const std::vector<AdversarialConstruct>& adversarial_constructs() {
  static const std::vector<AdversarialConstruct> constructs = {
    {"nested-blocks", &page_of<block>},
    {"nested-inline", &page_of<inline_open>},
    {"nested-custom-elements", &page_of<custom_open>},
    {"self-closing-blocks", &page_of<self_closing_block>},
    {"blocks-then-stray-end-tags", &page_of<blocks_then_stray_ends>},
    {"blocks-then-anchors", &page_of<blocks_then_anchors>},
    {"inline-then-closing-blocks", &page_of<blocks_then_closing_blocks>},
    ACTORCRAWL_AT_EVERY_POINT("blocks", block),
    ACTORCRAWL_AT_EVERY_POINT("self-closing", self_closing_block),
    ACTORCRAWL_AT_EVERY_POINT("stray-end-tags", blocks_then_stray_ends),
    ACTORCRAWL_AT_EVERY_POINT("anchors", blocks_then_anchors),
    ACTORCRAWL_AT_EVERY_POINT("paragraphs", blocks_then_paragraphs),
    ACTORCRAWL_AT_EVERY_POINT("table-parts", blocks_then_table_parts),
    {"foreignObject+formatting", &at_integration_point<0, unclosed_formatting>},
    {"mi+tables", &at_integration_point<4, tables_in_cells>},
    {"svg-nested-groups", +[](std::size_t n, std::uint32_t s) { return build(n, s, "<svg>", svg_group); }},
    {"svg-groups-then-stray-end-tags",
     +[](std::size_t n, std::uint32_t s) { return build(n, s, "<svg>", svg_groups_then_stray_ends); }},
    {"math-nested-rows", +[](std::size_t n, std::uint32_t s) { return build(n, s, "<math>", math_row); }},
    {"nested-svg", &page_of<nested_svg_g>},
    {"nested-foreignObject", &page_of<nested_foreign_object>},
    {"misnested-formatting", &page_of<misnested_formatting>},
    {"formatting-furthest-block", &page_of<formatting_with_furthest_block>},
    {"unclosed-formatting", &page_of<unclosed_formatting>},
    {"formatting-then-paragraphs",
     +[](std::size_t n, std::uint32_t s) { return build(n, s, "<p>", formatting_then_text_paragraphs); }},
    {"unclosed-anchors", &page_of<anchors_unclosed>},
    {"nobr", &page_of<nobr>},
    {"nested-buttons", &page_of<buttons>},
    {"nested-forms", &page_of<forms>},
    {"list-items", &page_of<list_items>},
    {"headings", &page_of<headings>},
    {"paragraphs-in-buttons", &page_of<paragraphs_in_buttons>},
    {"tables-in-tables", &page_of<tables_in_tables>},
    {"tables-in-cells", &page_of<tables_in_cells>},
    {"table-parts", +[](std::size_t n, std::uint32_t s) { return build(n, s, "<table>", table_parts); }},
    {"foster-parenting", &page_of<foster_parented>},
    {"nested-selects", +[](std::size_t n, std::uint32_t s) { return build(n, s, "", selects, "</select>"); }},
    {"options-in-select", +[](std::size_t n, std::uint32_t s) { return build(n, s, "<select>", options, "</select>"); }},
    {"nested-templates", &page_of<templates>},
    {"templates-and-selects", &page_of<templates_in_select>, false},
    {"end-tag-run", &page_of<end_tag_run>},
    {"end-p-run", &page_of<end_p_run>},
    {"end-br-run", &page_of<end_br_run>},
    {"end-tags-with-attributes", &page_of<end_tags_with_attributes>},
    {"blocks-then-end-tag-run", +[](std::size_t n, std::uint32_t s) {
       return build(n, s, "", [](Rng& rng, bool second) { return second ? end_tag_run(rng, true) : block(rng, false); });
     }},
    {"comments", &page_of<comment_run>},
    {"unclosed-comment-dashes", +[](std::size_t n, std::uint32_t s) { return build(n, s, "<!--", dashes, "-->"); }},
    {"bogus-comments", &page_of<bogus_comments>},
    {"cdata-in-svg", +[](std::size_t n, std::uint32_t s) { return build(n, s, "<svg>", cdata_sections, "</svg>"); }},
    {"unclosed-cdata", +[](std::size_t n, std::uint32_t s) { return build(n, s, "<svg><![CDATA[", cdata_brackets, "]]></svg>"); }},
    {"script-almost-ends", +[](std::size_t n, std::uint32_t s) {
       return build(n, s, "<script>", almost_end_tags, "--></script>");
     }},
    {"escaped-script", +[](std::size_t n, std::uint32_t s) {
       return build(n, s, "<script><!--<script>", almost_end_tags, "--></script>");
     }},
    {"title-almost-ends", +[](std::size_t n, std::uint32_t s) {
       return build(n, s, "<title>", almost_title_end, "</title>");
     }},
    {"lone-less-than", &page_of<lone_lt>},
    {"named-references", &page_of<named_refs>},
    {"unknown-references", &page_of<unknown_refs>},
    {"numeric-references", &page_of<numeric_refs>},
    {"references-in-hrefs", &page_of<href_refs>},
    {"title-of-references", +[](std::size_t n, std::uint32_t s) {
       return build(n, s, "<title>", named_refs, "</title>");
     }},
    {"many-attributes-on-a", +[](std::size_t n, std::uint32_t s) {
       return one_tag_page(n, s, "<a href=\"/many\"", many_attributes_unit);
     }},
    {"many-attributes-on-div", +[](std::size_t n, std::uint32_t s) {
       return one_tag_page(n, s, "<div", many_attributes_unit);
     }},
    {"duplicate-attributes", +[](std::size_t n, std::uint32_t s) {
       return one_tag_page(n, s, "<a href=\"/first\"", duplicate_attributes_unit);
     }},
    {"huge-attribute-value", +[](std::size_t n, std::uint32_t s) {
       return one_tag_page(n, s, "<a title=\"", long_value_unit, "\">");
     }},
    {"tags-with-many-attributes", &page_of<many_attribute_tags>},
    {"random-mix", &page_of<random_mix>, false},
  };
  return constructs;
}

}  // namespace actorcrawl::testing
