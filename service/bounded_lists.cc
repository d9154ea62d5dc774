#include "service/bounded_lists.h"

#include <nlohmann/json.hpp>

#include "core/web/json_text.h"

namespace actorcrawl {

namespace {

void append_key(std::string& out, const char* key, bool first = false) {
  if (!first)
    out += ',';
  out += '"';
  out += key;
  out += "\":";
}

// A page's record up to its links: {"url":...,"links":[
void append_page_head(std::string& out, const PageView& page) {
  out += '{';
  append_key(out, "url", true);
  append_json_string(out, page.url);
  append_key(out, "status_code");
  out += std::to_string(page.status_code);
  append_key(out, "title");
  append_json_string(out, page.title);
  append_key(out, "links_total");
  out += std::to_string(page.links_total);
  append_key(out, "crawled_at");
  out += std::to_string(page.crawled_at);
  append_key(out, "links");
  out += '[';
}

// What closes a page ("]}") and the list ("]") after the last link.
constexpr std::size_t kPageClose = 3;

// A stored item goes into the answer as it was stored when it is a JSON
// object (which the validation proves, without building a tree of it);
// anything else — a database some other writer filled — must not make the
// answer unreadable, so it comes as null with its text quoted beside it.
// The parser is iterative and checks UTF-8, so no item can break the
// answer or the stack.
void append_item(std::string& out, const ItemView& item) {
  out += '{';
  append_key(out, "url", true);
  append_json_string(out, item.url);
  append_key(out, "kind");
  append_json_string(out, item.kind);
  append_key(out, "item");
  const auto start = item.item.find_first_not_of(" \t\n\r");
  if (start != std::string::npos && item.item[start] == '{' && nlohmann::json::accept(item.item)) {
    out += item.item;
  } else {
    out += "null";
    append_key(out, "item_text");
    append_json_string(out, item.item);
  }
  out += '}';
}

}  // namespace

bool append_within(std::string& array, std::string_view element, std::size_t& used, std::size_t budget,
                   bool first_of_answer) {
  const bool comma = array.size() > 1;
  const std::size_t adds = element.size() + (comma ? 1 : 0);
  if (!first_of_answer && used + adds > budget)
    return false;
  if (comma)
    array += ',';
  array += element;
  used += adds;
  return true;
}

PagesList list_pages(const std::string& db_path, const PagesWindow& window, std::size_t budget) {
  PageReader reader(db_path, window.offset);
  PagesList out;
  out.total = reader.total();
  std::string& text = out.json;
  text = "[";
  const std::int64_t links_end = window.links_offset + window.links_limit;
  std::int64_t whole = 0;  // pages in the answer with every link of the window
  std::optional<std::int64_t> resume_links;
  PageView page;
  while (whole < window.limit && reader.next(page)) {
    const std::size_t page_start = text.size();
    if (whole > 0)
      text += ',';
    append_page_head(text, page);
    const std::int64_t from = whole == 0 && window.first_links_offset ? *window.first_links_offset : window.links_offset;
    std::int64_t at = from;
    bool cut = false;
    reader.links(from, links_end - from, [&](const std::string& link) {
      const std::size_t link_start = text.size();
      if (at > from)
        text += ',';
      append_json_string(text, link);
      // The answer's first page keeps at least one link, or it never gets on.
      if (text.size() + kPageClose > budget && (whole > 0 || at > from)) {
        text.resize(link_start);
        cut = true;
        return false;
      }
      ++at;
      return true;
    });
    // A page that does not fit with one link (or, without links, at all) is
    // left whole to the next answer.
    const bool nothing_fits = whole > 0 && ((cut && at == from) || text.size() + kPageClose > budget);
    if (nothing_fits) {
      text.resize(page_start);
      out.truncated = true;
      break;
    }
    text += "]}";
    if (cut) {
      resume_links = at;
      out.truncated = true;
      break;
    }
    ++whole;
  }
  text += ']';
  const std::int64_t next_offset = window.offset + whole;
  if (resume_links || next_offset < out.total) {
    out.next = window;
    out.next->offset = next_offset;
    out.next->first_links_offset = resume_links;
  }
  return out;
}

GraphLists list_graph(const std::string& db_path, const GraphWindow& window, std::size_t budget) {
  GraphLists out;
  out.nodes_json = "[";
  out.edges_json = "[";
  // Both arrays share the budget; an empty pair ("[]", "[]") is in it.
  std::size_t used = 4;
  std::int64_t nodes = 0, edges = 0;
  std::string element;
  out.totals = visit_graph(
    db_path, window.nodes_offset, window.edges_offset,
    [&](const GraphView::Node& n) {
      element = "{";
      append_key(element, "id", true);
      append_json_string(element, n.id);
      append_key(element, "crawl_count");
      element += std::to_string(n.crawl_count);
      append_key(element, "description");
      append_json_string(element, n.description);
      element += '}';
      if (!append_within(out.nodes_json, element, used, budget, nodes == 0))
        return false;
      ++nodes;
      return true;
    },
    [&](const GraphView::Edge& e) {
      element = "{";
      append_key(element, "from", true);
      append_json_string(element, e.from);
      append_key(element, "to");
      append_json_string(element, e.to);
      append_key(element, "weight");
      element += std::to_string(e.weight);
      element += '}';
      if (!append_within(out.edges_json, element, used, budget, nodes == 0 && edges == 0))
        return false;
      ++edges;
      return true;
    });
  out.nodes_json += ']';
  out.edges_json += ']';
  const GraphWindow reached{window.nodes_offset + nodes, window.edges_offset + edges};
  if (reached.nodes_offset < out.totals.nodes || reached.edges_offset < out.totals.edges) {
    out.next = reached;
    out.truncated = true;
  }
  return out;
}

ItemsList list_items(const std::string& db_path, const ItemsWindow& window, std::size_t budget) {
  ItemReader reader(db_path, window.offset, window.kind);
  ItemsList out;
  out.total = reader.total();
  out.json = "[";
  std::size_t used = 2;  // "[]"
  std::int64_t listed = 0;
  std::string element;
  ItemView item;
  while (listed < window.limit && reader.next(item)) {
    element.clear();
    append_item(element, item);
    if (!append_within(out.json, element, used, budget, listed == 0)) {
      out.truncated = true;
      break;
    }
    ++listed;
  }
  out.json += ']';
  const std::int64_t next_offset = window.offset + listed;
  if (next_offset < out.total) {
    out.next = window;
    out.next->offset = next_offset;
  }
  return out;
}

}  // namespace actorcrawl
