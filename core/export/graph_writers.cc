#include "core/export/graph_writers.h"

#include <algorithm>
#include <climits>

#include "core/export/export_text.h"

namespace actorcrawl {

namespace {

// Lines collect in a buffer that goes to the stream when this full: one
// write per many nodes, never a whole graph in memory.
constexpr std::size_t kFlushBytes = 64 * 1024;

class BufferedWriter : public GraphWriter {
 protected:
  explicit BufferedWriter(std::ostream& out) : out_(out) {}
  void flush_if_full() {
    if (buffer_.size() >= kFlushBytes)
      flush();
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

  std::ostream& out_;
  std::string buffer_;
};

// An attribute's type, as GraphML's attr.type and GEXF's type name it
// (both borrowed from XML Schema).
const char* xml_type(GraphAttribute::Type t) {
  switch (t) {
    case GraphAttribute::Type::integer: return "long";
    case GraphAttribute::Type::boolean: return "boolean";
    case GraphAttribute::Type::text: return "string";
  }
  return "string";
}

// -- GraphML -----------------------------------------------------------------

class GraphmlWriter final : public BufferedWriter {
 public:
  GraphmlWriter(const GraphSchema& schema, std::ostream& out) : BufferedWriter(out), schema_(schema) {
    buffer_ +=
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" "
      "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
      "xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns "
      "http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n";
    for (const auto& a : schema_.node_attributes)
      declare("node", "n_", a.name, xml_type(a.type));
    if (schema_.weighted)
      declare("edge", "e_", "weight", "long");
    for (const auto& a : schema_.edge_attributes)
      declare("edge", "e_", a.name, xml_type(a.type));
    buffer_ += "  <graph id=\"";
    append_xml(buffer_, schema_.name);
    buffer_ += "\" edgedefault=\"directed\">\n";
  }

  void node(std::string_view id, const AttributeValues& values) override {
    buffer_ += "    <node id=\"";
    append_xml(buffer_, id);
    buffer_ += "\">";
    data("n_", schema_.node_attributes, values);
    buffer_ += "</node>\n";
    flush_if_full();
  }

  void edge(std::string_view from, std::string_view to, std::optional<std::int64_t> weight,
            const AttributeValues& values) override {
    buffer_ += "    <edge source=\"";
    append_xml(buffer_, from);
    buffer_ += "\" target=\"";
    append_xml(buffer_, to);
    buffer_ += "\">";
    if (schema_.weighted && weight)
      buffer_ += "<data key=\"e_weight\">" + std::to_string(*weight) + "</data>";
    data("e_", schema_.edge_attributes, values);
    buffer_ += "</edge>\n";
    flush_if_full();
  }

  void finish() override {
    buffer_ += "  </graph>\n</graphml>\n";
    flush();
  }

 private:
  void declare(const char* domain, const char* prefix, const std::string& name, const char* type) {
    buffer_ += "  <key id=\"";
    buffer_ += prefix;
    append_xml(buffer_, name);
    buffer_ += "\" for=\"";
    buffer_ += domain;
    buffer_ += "\" attr.name=\"";
    append_xml(buffer_, name);
    buffer_ += "\" attr.type=\"";
    buffer_ += type;
    buffer_ += "\"/>\n";
  }

  void data(const char* prefix, const std::vector<GraphAttribute>& attributes, const AttributeValues& values) {
    for (std::size_t i = 0; i < attributes.size() && i < values.size(); ++i) {
      if (!values[i])
        continue;
      buffer_ += "<data key=\"";
      buffer_ += prefix;
      append_xml(buffer_, attributes[i].name);
      buffer_ += "\">";
      append_xml(buffer_, *values[i]);
      buffer_ += "</data>";
    }
  }

  GraphSchema schema_;
};

// -- GEXF 1.2 ----------------------------------------------------------------

class GexfWriter final : public BufferedWriter {
 public:
  GexfWriter(const GraphSchema& schema, std::ostream& out) : BufferedWriter(out), schema_(schema) {
    buffer_ +=
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<gexf xmlns=\"http://www.gexf.net/1.2draft\" version=\"1.2\">\n"
      "  <meta><creator>actorcrawl</creator><description>";
    append_xml(buffer_, schema_.name);
    buffer_ += "</description></meta>\n  <graph mode=\"static\" defaultedgetype=\"directed\">\n";
    declare("node", schema_.node_attributes);
    declare("edge", schema_.edge_attributes);
    buffer_ += "    <nodes>\n";
  }

  void node(std::string_view id, const AttributeValues& values) override {
    buffer_ += "      <node id=\"";
    append_xml(buffer_, id);
    buffer_ += "\" label=\"";
    append_xml(buffer_, id);
    buffer_ += '"';
    attvalues(schema_.node_attributes, values);
    buffer_ += "</node>\n";
    flush_if_full();
  }

  void edge(std::string_view from, std::string_view to, std::optional<std::int64_t> weight,
            const AttributeValues& values) override {
    open_edges();
    buffer_ += "      <edge id=\"" + std::to_string(edges_++) + "\" source=\"";
    append_xml(buffer_, from);
    buffer_ += "\" target=\"";
    append_xml(buffer_, to);
    buffer_ += '"';
    if (schema_.weighted && weight)
      buffer_ += " weight=\"" + std::to_string(*weight) + "\"";
    attvalues(schema_.edge_attributes, values);
    buffer_ += "</edge>\n";
    flush_if_full();
  }

  void finish() override {
    open_edges();
    buffer_ += "    </edges>\n  </graph>\n</gexf>\n";
    flush();
  }

 private:
  void declare(const char* kind, const std::vector<GraphAttribute>& attributes) {
    if (attributes.empty())
      return;
    buffer_ += "    <attributes class=\"";
    buffer_ += kind;
    buffer_ += "\">\n";
    for (std::size_t i = 0; i < attributes.size(); ++i) {
      buffer_ += "      <attribute id=\"" + std::to_string(i) + "\" title=\"";
      append_xml(buffer_, attributes[i].name);
      buffer_ += "\" type=\"";
      buffer_ += xml_type(attributes[i].type);
      buffer_ += "\"/>\n";
    }
    buffer_ += "    </attributes>\n";
  }

  void attvalues(const std::vector<GraphAttribute>& attributes, const AttributeValues& values) {
    std::string inner;
    for (std::size_t i = 0; i < attributes.size() && i < values.size(); ++i) {
      if (!values[i])
        continue;
      inner += "<attvalue for=\"" + std::to_string(i) + "\" value=\"";
      append_xml(inner, *values[i]);
      inner += "\"/>";
    }
    buffer_ += '>';
    if (!inner.empty())
      buffer_ += "<attvalues>" + inner + "</attvalues>";
  }

  void open_edges() {
    if (edges_open_)
      return;
    buffer_ += "    </nodes>\n    <edges>\n";
    edges_open_ = true;
  }

  GraphSchema schema_;
  bool edges_open_ = false;
  std::int64_t edges_ = 0;
};

// -- Graphviz DOT --------------------------------------------------------------

class DotWriter final : public BufferedWriter {
 public:
  DotWriter(const GraphSchema& schema, std::ostream& out) : BufferedWriter(out), schema_(schema) {
    buffer_ += "digraph ";
    append_dot_quoted(buffer_, schema_.name);
    buffer_ += " {\n";
  }

  void node(std::string_view id, const AttributeValues& values) override {
    buffer_ += "  ";
    append_dot_quoted(buffer_, id);
    attributes(schema_.node_attributes, values, std::nullopt);
    buffer_ += ";\n";
    flush_if_full();
  }

  void edge(std::string_view from, std::string_view to, std::optional<std::int64_t> weight,
            const AttributeValues& values) override {
    buffer_ += "  ";
    append_dot_quoted(buffer_, from);
    buffer_ += " -> ";
    append_dot_quoted(buffer_, to);
    attributes(schema_.edge_attributes, values, schema_.weighted ? weight : std::nullopt);
    buffer_ += ";\n";
    flush_if_full();
  }

  void finish() override {
    buffer_ += "}\n";
    flush();
  }

 private:
  void attributes(const std::vector<GraphAttribute>& declared, const AttributeValues& values,
                  std::optional<std::int64_t> weight) {
    std::string list;
    const auto add = [&](const std::string& name) {
      list += list.empty() ? " [" : ", ";
      list += name;
      list += '=';
    };
    // Graphviz takes a weight from 0 to INT_MAX and refuses the file otherwise.
    if (weight) {
      add("weight");
      list += std::to_string(std::clamp<std::int64_t>(*weight, 0, INT_MAX));
    }
    for (std::size_t i = 0; i < declared.size() && i < values.size(); ++i) {
      if (!values[i])
        continue;
      add(declared[i].name);
      append_dot_quoted(list, *values[i]);
    }
    if (!list.empty())
      buffer_ += list + "]";
  }

  GraphSchema schema_;
};

}  // namespace

std::unique_ptr<GraphWriter> make_graph_writer(GraphFormat format, const GraphSchema& schema, std::ostream& out) {
  switch (format) {
    case GraphFormat::graphml: return std::make_unique<GraphmlWriter>(schema, out);
    case GraphFormat::gexf: return std::make_unique<GexfWriter>(schema, out);
    case GraphFormat::dot: return std::make_unique<DotWriter>(schema, out);
  }
  return nullptr;
}

}  // namespace actorcrawl
