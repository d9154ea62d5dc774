#include "service/http_response.h"

#include "core/encoding/percent_encoding.h"
#include "core/web/ascii.h"

namespace actorcrawl {

void HttpResponse::set_header(std::string name, std::string value) {
  for (auto& [field, text] : headers)
    if (ascii::iequals(field, name)) {
      text = std::move(value);
      return;
    }
  headers.emplace_back(std::move(name), std::move(value));
}

const char* reason_phrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 202: return "Accepted";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 421: return "Misdirected Request";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

std::string render_head(const HttpResponse& response, std::string_view connection) {
  std::string out;
  out.reserve(256);
  out.append("HTTP/1.1 ").append(std::to_string(response.status)).append(" ").append(reason_phrase(response.status));
  out.append("\r\n");
  for (const auto& [name, value] : response.headers)
    out.append(name).append(": ").append(value).append("\r\n");
  if (!response.content_type.empty())
    out.append("Content-Type: ").append(response.content_type).append("\r\n");
  if (response.streamer)
    out.append("Transfer-Encoding: chunked\r\n");
  else
    out.append("Content-Length: ").append(std::to_string(response.body.size())).append("\r\n");
  out.append(connection);
  out.append("\r\n");
  return out;
}

void append_chunk(std::string& out, std::string_view data) {
  if (data.empty())
    return;  // an empty chunk would end the body
  char size[2 * sizeof(std::size_t)];
  std::size_t digits = 0;
  for (std::size_t n = data.size(); n > 0; n >>= 4)
    size[digits++] = lower_hex_digit(static_cast<unsigned>(n & 0xF));
  while (digits > 0)
    out += size[--digits];
  out.append("\r\n").append(data).append("\r\n");
}

}  // namespace actorcrawl
