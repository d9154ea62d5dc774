// The byte codec of what crosses between processes packed (link_packing.h,
// record_packing.h): numbers as LEB128 (signed ones zigzagged first), a
// string as its length and its bytes. The reader takes bytes from another
// process: every read checks what is left and says false, never reads past.
//
// All inline: a page's links are read a varint at a time, and a call a
// varint cost the coordinator 45% more instructions in unpacking them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace actorcrawl {

// Bytes put_number writes for `n`: 1 to 10.
inline std::size_t packed_number_size(std::uint64_t n) {
  std::size_t size = 1;
  for (; n >= 0x80; n >>= 7)
    ++size;
  return size;
}

inline void put_number(std::string& out, std::uint64_t n) {
  for (; n >= 0x80; n >>= 7)
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
  out.push_back(static_cast<char>(n));
}

inline void put_signed(std::string& out, std::int64_t n) {
  put_number(out, (static_cast<std::uint64_t>(n) << 1) ^ static_cast<std::uint64_t>(n >> 63));
}

inline void put_bytes(std::string& out, std::string_view bytes) {
  put_number(out, bytes.size());
  out.append(bytes);
}

// The bytes put_bytes writes for `bytes`.
inline std::size_t packed_bytes_size(std::string_view bytes) {
  return packed_number_size(bytes.size()) + bytes.size();
}

class PackedReader {
 public:
  explicit PackedReader(std::string_view in) : in_(in) {}

  bool done() const { return in_.empty(); }
  std::size_t left() const { return in_.size(); }

  // Any number put_number wrote: ten bytes at most (64 bits in sevens),
  // the tenth holding one bit.
  bool number(std::uint64_t& n) {
    if (!in_.empty() && static_cast<unsigned char>(in_.front()) < 0x80) {  // most numbers here
      n = static_cast<unsigned char>(in_.front());
      in_.remove_prefix(1);
      return true;
    }
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (in_.empty())
        return false;
      const auto byte = static_cast<unsigned char>(in_.front());
      in_.remove_prefix(1);
      if (shift == 63 && (byte & 0xfe) != 0)
        return false;
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        n = value;
        return true;
      }
    }
    return false;
  }

  bool signed_number(std::int64_t& n) {
    std::uint64_t value = 0;
    if (!number(value))
      return false;
    n = static_cast<std::int64_t>(value >> 1) ^ -static_cast<std::int64_t>(value & 1);
    return true;
  }

  // A number that fits an int32's range (the lengths and counts here, and
  // the int32 fields of a record): anything larger is refused.
  bool length(std::uint32_t& n) {
    std::uint64_t value = 0;
    if (!number(value) || value > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
      return false;
    n = static_cast<std::uint32_t>(value);
    return true;
  }

  bool uint32(std::uint32_t& n) {
    std::uint64_t value = 0;
    if (!number(value) || value > std::numeric_limits<std::uint32_t>::max())
      return false;
    n = static_cast<std::uint32_t>(value);
    return true;
  }

  bool int32(std::int32_t& n) {
    std::int64_t value = 0;
    if (!signed_number(value) || value < std::numeric_limits<std::int32_t>::min() ||
        value > std::numeric_limits<std::int32_t>::max())
      return false;
    n = static_cast<std::int32_t>(value);
    return true;
  }

  bool byte(unsigned char& b) {
    if (in_.empty())
      return false;
    b = static_cast<unsigned char>(in_.front());
    in_.remove_prefix(1);
    return true;
  }

  bool flag(bool& b) {  // a byte of 0 or 1
    unsigned char value = 0;
    if (!byte(value) || value > 1)
      return false;
    b = value == 1;
    return true;
  }

  bool bytes(std::string_view& out) {
    std::uint32_t n = 0;
    if (!length(n) || n > in_.size())
      return false;
    out = in_.substr(0, n);
    in_.remove_prefix(n);
    return true;
  }

  bool bytes(std::string& out) {
    std::string_view view;
    if (!bytes(view))
      return false;
    out.assign(view);
    return true;
  }

 private:
  std::string_view in_;
};

}  // namespace actorcrawl
