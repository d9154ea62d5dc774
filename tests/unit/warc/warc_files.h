// Test support for the WARC tests: .warc.gz files
// read back record by record with zlib alone (no code under test), so a
// test sees exactly what a reader would.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/unit/temp_path.h"

namespace actorcrawl::testing {

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every gzip member of `bytes`, inflated; throws on a torn or bad member.
// With `ends`, also where each member ends in `bytes`.
inline std::vector<std::string> gzip_members(const std::string& bytes, std::vector<std::size_t>* ends = nullptr) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    z_stream z{};
    inflateInit2(&z, 15 + 16);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + pos));
    z.avail_in = static_cast<uInt>(bytes.size() - pos);
    std::string member;
    char buf[65536];
    int rc = Z_OK;
    while (rc == Z_OK) {
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      rc = inflate(&z, Z_NO_FLUSH);
      member.append(buf, sizeof buf - z.avail_out);
      if (rc == Z_BUF_ERROR && z.avail_in == 0)
        break;
    }
    const std::size_t used = bytes.size() - pos - z.avail_in;
    inflateEnd(&z);
    if (rc != Z_STREAM_END)
      throw std::runtime_error("torn or bad gzip member at offset " + std::to_string(pos));
    out.push_back(std::move(member));
    pos += used;
    if (ends)
      ends->push_back(pos);
  }
  return out;
}

// One record read back: its header fields and its block.
struct ReadRecord {
  std::map<std::string, std::string> fields;
  std::string block;
  std::string field(const std::string& name) const {
    auto it = fields.find(name);
    return it == fields.end() ? std::string{} : it->second;
  }
};

// A record from one member's text; throws when it is not one whole record.
inline ReadRecord parse_record(const std::string& text) {
  ReadRecord r;
  if (text.rfind("WARC/1.1\r\n", 0) != 0)
    throw std::runtime_error("no WARC/1.1 line");
  const auto end = text.find("\r\n\r\n");
  std::size_t pos = 10;
  while (pos < end) {
    const auto eol = text.find("\r\n", pos);
    const std::string line = text.substr(pos, eol - pos);
    const auto colon = line.find(": ");
    r.fields[line.substr(0, colon)] = line.substr(colon + 2);
    pos = eol + 2;
  }
  const std::size_t length = std::stoul(r.fields.at("Content-Length"));
  r.block = text.substr(end + 4, length);
  if (r.block.size() != length || text.substr(end + 4 + length) != "\r\n\r\n")
    throw std::runtime_error("record length does not match its Content-Length");
  return r;
}

inline std::vector<ReadRecord> read_warc_file(const std::string& path) {
  std::vector<ReadRecord> out;
  for (const auto& member : gzip_members(read_bytes(path)))
    out.push_back(parse_record(member));
  return out;
}

}  // namespace actorcrawl::testing
