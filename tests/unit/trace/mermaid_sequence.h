// Whether `text` is a sequence diagram in the subset render_mermaid
// (core/trace/trace_query.h) writes: the first non-blank line
// "sequenceDiagram", then only "participant ID as LABEL" and "ID->>ID: text" /
// "ID-->>ID: text" lines between declared IDs. Lets the tests catch a diagram
// Mermaid would refuse; the product only writes diagrams, so it lives here.
#pragma once

#include <string_view>

namespace actorcrawl::testing {

bool is_valid_mermaid_sequence(std::string_view text);

}  // namespace actorcrawl::testing
