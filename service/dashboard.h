// The dashboard page served at GET / by `actorcrawl serve`: the text of
// service/dashboard/index.html, compiled in by embed_text_file()
// (cmake/EmbedFile.cmake), so the binary needs no files at run time.
#pragma once

#include <string_view>

namespace actorcrawl {

// The whole page (UTF-8 HTML). The view stays valid for the program's life.
std::string_view dashboard_html();

}  // namespace actorcrawl
