// A graph written as GraphML, GEXF (1.2) or Graphviz DOT, node by node and
// edge by edge as they are read: nothing is held but the current line.
// Every id and value goes through export_text.h, so the file is
// well-formed whatever a crawl stored. The caller gives all nodes before
// the first edge (GEXF keeps them in separate sections).
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace actorcrawl {

struct GraphAttribute {
  enum class Type { integer, text, boolean };
  std::string name;
  Type type;
};

// What a graph's nodes and edges carry, declared once at the head of the
// file. Values come in this order, as text (integers in decimal, booleans
// "true"/"false"); nullopt leaves the value out.
struct GraphSchema {
  std::string name;  // the graph's id: "domains" or "pages"
  std::vector<GraphAttribute> node_attributes;
  std::vector<GraphAttribute> edge_attributes;
  bool weighted = false;  // edges carry a weight (GEXF's and DOT's own attribute)
};

using AttributeValues = std::vector<std::optional<std::string>>;

class GraphWriter {
 public:
  virtual ~GraphWriter() = default;
  virtual void node(std::string_view id, const AttributeValues& values) = 0;
  virtual void edge(std::string_view from, std::string_view to, std::optional<std::int64_t> weight,
                    const AttributeValues& values) = 0;
  // Closes the document. Without it the file is cut short.
  virtual void finish() = 0;
};

enum class GraphFormat { graphml, gexf, dot };

// Writes the head at once.
std::unique_ptr<GraphWriter> make_graph_writer(GraphFormat format, const GraphSchema& schema, std::ostream& out);

}  // namespace actorcrawl
