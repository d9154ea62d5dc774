#include "core/sitemap/w3c_datetime.h"

#include "core/clock/utc_time.h"
#include "core/web/ascii.h"

namespace actorcrawl {
namespace {

// Reads exactly `count` ASCII digits at `pos`.
bool digits(std::string_view s, std::size_t& pos, int count, int& out) {
  if (pos + count > s.size()) return false;
  int value = 0;
  for (int i = 0; i < count; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  pos += count;
  out = value;
  return true;
}

bool at(std::string_view s, std::size_t pos, char c) { return pos < s.size() && s[pos] == c; }

}  // namespace

std::optional<std::int64_t> parse_w3c_datetime(std::string_view text) {
  const std::string_view s = ascii::trim(text);
  std::size_t pos = 0;
  int year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0, millis = 0, offset_minutes = 0;
  if (!digits(s, pos, 4, year)) return std::nullopt;
  if (at(s, pos, '-')) {
    ++pos;
    if (!digits(s, pos, 2, month) || month < 1 || month > 12) return std::nullopt;
    if (at(s, pos, '-')) {
      ++pos;
      if (!digits(s, pos, 2, day) || day < 1 || static_cast<unsigned>(day) > days_in_month(year, static_cast<unsigned>(month)))
        return std::nullopt;
      if (at(s, pos, 'T')) {
        ++pos;
        if (!digits(s, pos, 2, hour) || hour > 23 || !at(s, pos++, ':') || !digits(s, pos, 2, minute) || minute > 59)
          return std::nullopt;
        if (at(s, pos, ':')) {
          ++pos;
          // 60: a leap second, read as the last second of its minute.
          if (!digits(s, pos, 2, second) || second > 60) return std::nullopt;
          if (second == 60) second = 59;
          if (at(s, pos, '.')) {
            ++pos;
            const std::size_t first = pos;
            int scale = 100;
            while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
              millis += (s[pos] - '0') * scale;
              scale /= 10;
              ++pos;
            }
            if (pos == first) return std::nullopt;
          }
        }
        if (at(s, pos, 'Z')) {
          ++pos;
        } else if (at(s, pos, '+') || at(s, pos, '-')) {
          const int sign = s[pos++] == '-' ? -1 : 1;
          int oh = 0, om = 0;
          if (!digits(s, pos, 2, oh)) return std::nullopt;
          if (at(s, pos, ':')) {
            ++pos;
            if (!digits(s, pos, 2, om)) return std::nullopt;
          } else if (pos < s.size() && !digits(s, pos, 2, om)) {
            return std::nullopt;
          }
          if (om > 59 || oh * 60 + om > 14 * 60) return std::nullopt;
          offset_minutes = sign * (oh * 60 + om);
        }
      }
    }
  }
  if (pos != s.size()) return std::nullopt;
  const std::int64_t seconds =
    epoch_seconds_of(UtcTime{year, static_cast<unsigned>(month), static_cast<unsigned>(day), 0, 0, 0}) + hour * 3600 +
    minute * 60 + second - offset_minutes * 60;
  return seconds * 1000 + millis;
}

}  // namespace actorcrawl
