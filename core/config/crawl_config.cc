#include "core/config/crawl_config.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <arpa/inet.h>
#include <sys/stat.h>

#include <cerrno>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "core/web/ascii.h"
#include "core/web/charset.h"
#include "core/web/json_guard.h"
#include "core/config/tls_files.h"
#include "core/web/url.h"
#include "core/web/json_text.h"
#include "core/web/ip_literal.h"

namespace actorcrawl {

namespace {

// How deep a configuration's flow collections may nest ([...], {...}).
constexpr std::size_t kMaxYamlNesting = 64;

using C = CrawlConfig;

}  // namespace

namespace {

const ConfigKey* find_key(const std::string& name) { return find_config_key(name); }

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suggestion(const std::string& unknown) {
  const ConfigKey* best = nullptr;
  std::size_t best_d = 4;
  for (const auto& k : config_keys()) {
    auto d = edit_distance(unknown, k.name);
    if (d < best_d) {
      best_d = d;
      best = &k;
    }
  }
  return best ? std::string{" (did you mean '"} + best->name + "'?)" : std::string{};
}

std::int64_t parse_integer(const std::string& raw) {
  std::string text = std::string{ascii::trim(raw)};
  if (text.empty())
    throw ConfigError("expected an integer, got an empty value");
  std::size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (i == text.size() || !std::all_of(text.begin() + static_cast<long>(i), text.end(),
                                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    throw ConfigError("expected an integer, got '" + raw + "'");
  try {
    return std::stoll(text);
  } catch (const std::exception&) {
    // Past what 64 bits hold: below any key's minimum or above its maximum.
    return text[0] == '-' ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  }
}

// A number with an optional unit suffix; `units` maps suffixes to factors.
std::int64_t parse_with_units(const std::string& raw,
                              const std::vector<std::pair<std::string, double>>& units,
                              const char* what) {
  std::string text = ascii::lowercase(ascii::trim(raw));
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
    ++end;
  if (end == 0)
    throw ConfigError(std::string{"expected "} + what + ", got '" + raw + "'");
  double number = 0;
  std::size_t used = 0;
  try {
    number = std::stod(text.substr(0, end), &used);
  } catch (const std::exception&) {
    throw ConfigError(std::string{"expected "} + what + ", got '" + raw + "'");
  }
  if (used != end)  // "1.2.3s": stod stops at the second '.'
    throw ConfigError(std::string{"expected "} + what + ", got '" + raw + "'");
  std::string unit = std::string{ascii::trim(text.substr(end))};
  for (const auto& [suffix, factor] : units) {
    if (unit == suffix) {
      double value = number * factor;
      if (value > 9.0e18)
        throw ConfigError(std::string{what} + " out of range: '" + raw + "'");
      return static_cast<std::int64_t>(std::llround(value));
    }
  }
  throw ConfigError(std::string{"expected "} + what + ", got '" + raw + "'");
}

// The value is named as it was written: "got 18446744073709551615", not
// what it became on the way.
void check_range(const ConfigKey& key, std::int64_t v, const std::string& written) {
  if (v < key.min || v > key.max) {
    std::ostringstream msg;
    msg << "must be between " << key.min << " and " << key.max << ", got " << ascii::trim(written);
    if (key.kind != ValueKind::integer)
      msg << " (" << v << (key.kind == ValueKind::duration_ms ? " ms)" : " bytes)");
    throw ConfigError(msg.str());
  }
}

// A YAML value as JSON. Plain scalars take YAML 1.2's core types (true,
// false, null, integers, floats); quoted ones stay strings, so '5' is "5".
// Mappings keep the order they are written in: an extraction rule's fields
// become an item's keys, and CSV columns, in that order.
nlohmann::ordered_json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Sequence: {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const auto& item : node)
        out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::ordered_json out = nlohmann::ordered_json::object();
      for (const auto& item : node) {
        const std::string name = item.first.Scalar();
        if (out.contains(name))
          throw ConfigError("key '" + name + "' is given twice, line " + std::to_string(item.first.Mark().line + 1));
        out[name] = yaml_to_json(item.second);
      }
      return out;
    }
    case YAML::NodeType::Scalar:
      break;
  }
  const std::string& text = node.Scalar();
  if (node.Tag() != "?")  // quoted, or tagged: a string
    return text;
  if (text == "true" || text == "True" || text == "TRUE")
    return true;
  if (text == "false" || text == "False" || text == "FALSE")
    return false;
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
    return nullptr;
  const auto number = nlohmann::ordered_json::parse(text, nullptr, false);
  if (!number.is_discarded() && number.is_number())
    return number;
  return text;
}

YAML::Node yaml_node_of(const std::string& text) {
  // yaml-cpp's parser recurses by the nesting of flow collections: `[[[[`
  // a million deep would overflow the stack (json_guard.h).
  if (!json_nests_within(text, kMaxYamlNesting))
    throw ConfigError("a value nests deeper than " + std::to_string(kMaxYamlNesting) + " levels of [ ] and { }");
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("invalid YAML or JSON: " + e.msg);
  }
}

// A structured key's value as JSON text; nothing (null, an empty list) is "".
std::string structured_json(const YAML::Node& node) {
  const nlohmann::ordered_json value = yaml_to_json(node);
  if (value.is_null() || (value.is_array() && value.empty()))
    return {};
  if (!value.is_array() && !value.is_object())
    throw ConfigError("expected a list or a mapping");
  return json_text(value);
}

// An object item of a list (an external processor's entry) as JSON text.
std::string object_item_json(const YAML::Node& node) {
  const nlohmann::ordered_json value = yaml_to_json(node);
  if (!value.is_object())
    throw ConfigError("expected a name or a mapping");
  return json_text(value);
}

// Parses one scalar for `key` and stores it. `append` adds to a list
// instead of replacing it.
void assign_scalar(const ConfigKey& key, const std::string& text, CrawlConfig& cfg, bool append) {
  switch (key.kind) {
    case ValueKind::integer:
    case ValueKind::duration_ms:
    case ValueKind::bytes: {
      std::int64_t v = key.kind == ValueKind::integer       ? parse_integer(text)
                       : key.kind == ValueKind::duration_ms ? parse_duration_ms(text)
                                                            : parse_byte_size(text);
      check_range(key, v, text);
      cfg.*std::get<std::int64_t C::*>(key.member) = v;
      break;
    }
    case ValueKind::boolean:
      cfg.*std::get<bool C::*>(key.member) = parse_boolean(text);
      break;
    case ValueKind::text: {
      if (!key.choices.empty() && std::find(key.choices.begin(), key.choices.end(), text) == key.choices.end()) {
        std::string all;
        for (const auto& c : key.choices)
          all += (all.empty() ? "" : ", ") + c;
        throw ConfigError("must be one of " + all + ", got '" + text + "'");
      }
      cfg.*std::get<std::string C::*>(key.member) = text;
      break;
    }
    case ValueKind::structured:
      cfg.*std::get<std::string C::*>(key.member) = structured_json(yaml_node_of(text));
      break;
    case ValueKind::text_list: {
      auto& list = cfg.*std::get<std::vector<std::string> C::*>(key.member);
      if (!append)
        list.clear();
      if (key.object_items && !ascii::trim(text).empty() && ascii::trim(text).front() == '{') {
        list.push_back(object_item_json(yaml_node_of(text)));
        break;
      }
      if (!key.comma_separated) {
        list.push_back(text);
        break;
      }
      std::stringstream items{text};
      std::string item;
      while (std::getline(items, item, ','))
        if (!ascii::trim(item).empty())
          list.push_back(std::string{ascii::trim(item)});
      break;
    }
  }
}

std::string describe(ValueKind kind) {
  switch (kind) {
    case ValueKind::integer: return "an integer";
    case ValueKind::boolean: return "true or false";
    case ValueKind::text: return "a string";
    case ValueKind::text_list: return "a list of strings";
    case ValueKind::duration_ms: return "a duration (250ms, 2s, 1m; a bare number is milliseconds)";
    case ValueKind::bytes: return "a size (1MiB, 512KiB; a bare number is bytes)";
    case ValueKind::structured: return "a list or a mapping";
  }
  return "a value";
}

std::string flag_of(const std::string& key) {
  std::string f = "--" + key;
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

// 24h for 86400000 ms, 30d for 2592000000: the largest unit that divides
// it (days from two on), as a flag takes it.
std::string duration_text(std::int64_t ms) {
  static const std::pair<const char*, std::int64_t> units[] = {
    {"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};
  for (const auto& [unit, size] : units)
    if (ms != 0 && ms % size == 0 && (size != 86400000 || ms >= 2 * size))
      return std::to_string(ms / size) + unit;
  return std::to_string(ms) + "ms";
}

// 1MiB for 1048576 bytes, as a flag takes it.
std::string size_text(std::int64_t bytes) {
  static const std::pair<const char*, std::int64_t> units[] = {
    {"GiB", std::int64_t{1} << 30}, {"MiB", std::int64_t{1} << 20}, {"KiB", std::int64_t{1} << 10}};
  for (const auto& [unit, size] : units)
    if (bytes != 0 && bytes % size == 0)
      return std::to_string(bytes / size) + unit;
  return std::to_string(bytes);
}

std::string default_text(const ConfigKey& key) {
  static const CrawlConfig defaults;
  if (key.shown_default != nullptr)
    return key.shown_default;
  switch (key.kind) {
    case ValueKind::integer:
      return std::to_string(defaults.*std::get<std::int64_t C::*>(key.member));
    case ValueKind::bytes:
      return size_text(defaults.*std::get<std::int64_t C::*>(key.member));
    case ValueKind::duration_ms:
      return duration_text(defaults.*std::get<std::int64_t C::*>(key.member));
    case ValueKind::boolean:
      return defaults.*std::get<bool C::*>(key.member) ? "true" : "false";
    case ValueKind::text: {
      const auto& v = defaults.*std::get<std::string C::*>(key.member);
      return v.empty() ? "(none)" : "\"" + v + "\"";
    }
    case ValueKind::structured:
      return "(none)";
    case ValueKind::text_list: {
      const auto& v = defaults.*std::get<std::vector<std::string> C::*>(key.member);
      if (v.empty())
        return "none";
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + v[i];
      return out + "]";
    }
  }
  return {};
}

// Flags that are not a key's own name.
struct Alias {
  const char* flag;
  const char* key;
};
const std::vector<Alias>& aliases() {
  static const std::vector<Alias> a = {
    {"--seed", "seeds"}, {"--workers", "concurrent_workers"}, {"--db", "db_path"},
    {"--metrics", "metrics_path"}, {"--trace", "trace_path"}, {"--token", "service_token"},
    {"--db-dir", "service_dir"}, {"--header", "headers"},
  };
  return a;
}

const ConfigKey* key_for_flag(const std::string& flag) {
  for (const auto& a : aliases())
    if (flag == a.flag)
      return find_key(a.key);
  for (const auto& k : config_keys()) {
    std::string own = flag_of(k.name);
    if (flag == own)
      return &k;
    // Duration keys also answer to their name without "_ms", with units.
    if (k.kind == ValueKind::duration_ms && own.size() > 3 && own.compare(own.size() - 3, 3, "-ms") == 0
        && flag == own.substr(0, own.size() - 3))
      return &k;
  }
  return nullptr;
}

}  // namespace

std::int64_t parse_duration_ms(const std::string& text) {
  static const std::vector<std::pair<std::string, double>> units = {
    {"", 1}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"min", 60000}, {"h", 3600000}, {"d", 86400000},
  };
  return parse_with_units(text, units, "a duration");
}

std::int64_t parse_byte_size(const std::string& text) {
  static const std::vector<std::pair<std::string, double>> units = {
    {"", 1}, {"b", 1}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
    {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"k", 1024.0}, {"m", 1048576.0},
  };
  return parse_with_units(text, units, "a size");
}

bool parse_boolean(const std::string& raw) {
  std::string t = ascii::lowercase(ascii::trim(raw));
  if (t == "true" || t == "yes" || t == "on" || t == "1")
    return true;
  if (t == "false" || t == "no" || t == "off" || t == "0")
    return false;
  throw ConfigError("expected true or false, got '" + raw + "'");
}

void apply_yaml(const std::string& yaml_text, const std::string& source, CrawlConfig& config) {
  if (!json_nests_within(yaml_text, kMaxYamlNesting))
    throw ConfigError(source + ": a value nests deeper than " + std::to_string(kMaxYamlNesting) +
                      " levels of [ ] and { }");
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ", line " + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  if (root.IsNull())
    return;  // an empty file keeps every default
  if (!root.IsMap())
    throw ConfigError(source + ": expected a mapping of config keys at the top level");
  bool seeds_cleared = false;
  std::map<std::string, int> first_line;  // a key given twice is a mistake, not an override
  for (const auto& item : root) {
    const std::string name = item.first.Scalar();
    const int line = item.first.Mark().line + 1;
    if (auto [it, fresh] = first_line.emplace(name, line); !fresh)
      throw ConfigError(source + ", line " + std::to_string(line) + ": key '" + name + "' is given twice (first on line " +
                        std::to_string(it->second) + ")");
    const std::string where = source + ", line " + std::to_string(line) + ": key '" + name + "': ";
    const ConfigKey* key = find_key(name);
    if (key == nullptr)
      throw ConfigError(source + ", line " + std::to_string(line) + ": unknown key '" + name + "'" + suggestion(name));
    config.given[name] = source + ", line " + std::to_string(line);
    const YAML::Node& value = item.second;
    try {
      if (key->kind == ValueKind::text_list) {
        // seed_url and seeds fill one list: the first of them replaces the
        // defaults, the second adds to it.
        bool is_seed_list = key->member == find_key("seeds")->member;
        bool append = is_seed_list && seeds_cleared;
        if (is_seed_list)
          seeds_cleared = true;
        auto& list = config.*std::get<std::vector<std::string> C::*>(key->member);
        if (!append)
          list.clear();
        if (value.IsScalar()) {
          assign_scalar(*key, value.Scalar(), config, true);
        } else if (value.IsSequence()) {
          for (const auto& v : value) {
            if (v.IsMap() && key->object_items)
              list.push_back(object_item_json(v));
            else if (!v.IsScalar())
              throw ConfigError(key->object_items ? "expected a list of names and mappings" : "expected a list of strings");
            else
              list.push_back(v.Scalar());
          }
        } else if (!value.IsNull()) {
          throw ConfigError("expected a list of strings");
        }
      } else if (key->kind == ValueKind::structured) {
        config.*std::get<std::string C::*>(key->member) = structured_json(value);
      } else {
        if (!value.IsScalar())
          throw ConfigError("expected " + describe(key->kind));
        assign_scalar(*key, value.Scalar(), config, false);
      }
    } catch (const ConfigError& e) {
      throw ConfigError(where + e.what());
    }
  }
}

std::string read_named_file(const std::string& path, const std::string& label, const char* kind,
                            std::size_t max_bytes) {
  // fopen() opens a directory, and reading it gives nothing: that must not
  // be an empty file (a config with every default, a jar with no cookie).
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw ConfigError(label + ": cannot be read (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode))
    throw ConfigError(label + ": is a directory, not " + kind);
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    throw ConfigError(label + ": cannot be read (" + std::strerror(errno) + ")");
  std::string text;
  char buf[65536];
  std::size_t n;
  // Bounded as it is read: a device that never ends (/dev/zero) is refused
  // at the limit, not read until memory runs out.
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    text.append(buf, n);
    if (text.size() > max_bytes) {
      std::fclose(f);
      throw ConfigError(label + ": larger than " + std::to_string(max_bytes >> 20) + " MiB");
    }
  }
  const bool failed = std::ferror(f) != 0;
  const int read_errno = errno;
  std::fclose(f);
  if (failed)
    throw ConfigError(label + ": cannot be read (" + std::strerror(read_errno) + ")");
  return text;
}

void apply_yaml_file(const std::string& path, CrawlConfig& config) {
  const std::string label = "config file '" + path + "'";
  apply_yaml(read_named_file(path, label, "a YAML file"), label, config);
}

void apply_environment(CrawlConfig& config, const std::function<const char*(const char*)>& lookup) {
  auto apply = [&](const ConfigKey& key, const std::string& var, const char* raw) {
    try {
      if (key.kind == ValueKind::text_list) {
        // Items that may hold a comma come one per line (see
        // ConfigKey::comma_separated); assign_scalar splits the others.
        auto& list = config.*std::get<std::vector<std::string> C::*>(key.member);
        list.clear();
        std::stringstream ss{raw};
        std::string item;
        while (std::getline(ss, item, '\n'))
          if (!ascii::trim(item).empty())
            assign_scalar(key, std::string{ascii::trim(item)}, config, true);
      } else {
        assign_scalar(key, raw, config, false);
      }
      config.given[key.name] = "environment variable " + var;
    } catch (const ConfigError& e) {
      throw ConfigError("environment variable " + var + ": " + e.what());
    }
  };
  for (const auto& key : config_keys()) {
    std::string var = "ACTORCRAWL_" + std::string{key.name};
    for (auto& c : var)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* raw = lookup(var.c_str()))
      apply(key, var, raw);
  }
  // Variables older crawlers of this family read: kept for their users.
  if (const char* raw = lookup("CRAWL_DELAY_MS"))
    apply(*find_key("politeness_delay_ms"), "CRAWL_DELAY_MS", raw);
  if (const char* raw = lookup("SEED"); raw != nullptr && *raw != '\0')
    apply(*find_key("seeds"), "SEED", raw);
}

std::string config_path_from_args(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--config" || args[i] == "-c") && i + 1 < args.size())
      return args[i + 1];
    if (args[i].rfind("--config=", 0) == 0)
      return args[i].substr(9);
  }
  return {};
}

std::vector<std::string> apply_command_line(const std::vector<std::string>& args, CrawlConfig& config) {
  std::vector<std::string> rest;
  // By member, not key: --seed-url, --seeds and --seed all fill `seeds`.
  std::vector<std::vector<std::string> C::*> lists_replaced;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      if (arg == "-c" && i + 1 < args.size()) {
        ++i;  // --config was read already
        continue;
      }
      rest.push_back(arg);
      continue;
    }
    std::string flag = arg;
    std::optional<std::string> value;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    if (flag == "--config") {
      if (!value)
        ++i;
      continue;
    }
    const ConfigKey* key = key_for_flag(flag);
    bool negated = false;
    if (key == nullptr && flag.rfind("--no-", 0) == 0) {
      key = key_for_flag("--" + flag.substr(5));
      negated = key != nullptr && key->kind == ValueKind::boolean;
      if (!negated)
        key = nullptr;
    }
    if (key == nullptr)
      throw ConfigError("unknown option '" + flag + "' (see actorcrawl --help)");
    if (key->kind == ValueKind::boolean && !value) {
      config.*std::get<bool C::*>(key->member) = !negated;
      config.given[key->name] = "option '" + flag + "'";
      continue;
    }
    if (!value) {
      if (i + 1 >= args.size())
        throw ConfigError("option '" + flag + "' needs a value");
      value = args[++i];
    }
    bool append = false;
    if (key->kind == ValueKind::text_list) {
      auto member = std::get<std::vector<std::string> C::*>(key->member);
      append = std::find(lists_replaced.begin(), lists_replaced.end(), member) != lists_replaced.end();
      if (!append)
        lists_replaced.push_back(member);
    }
    try {
      assign_scalar(*key, *value, config, append);
    } catch (const ConfigError& e) {
      throw ConfigError("option '" + flag + "': " + e.what());
    }
    config.given[key->name] = "option '" + flag + "'";
  }
  return rest;
}

namespace {

// The value with every byte outside printable ASCII as \xNN: safe to print
// and to put in JSON, whatever the user typed.
std::string escaped(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out;
}

// Text reaches HTTP headers, SQLite and JSON (the database, traces, the
// service), all of which expect UTF-8.
// Keys whose values may be secrets: no message repeats them.
bool holds_secrets(const ConfigKey& key) {
  for (const char* name : {"auth", "headers", "proxy", "service_token"})
    if (std::string_view{key.name} == name)
      return true;
  return false;
}

void require_utf8(const ConfigKey& key, const std::string& value) {
  const std::size_t bad = valid_utf8_prefix(value);
  if (bad == value.size())
    return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(value[bad]));
  throw ConfigError(std::string{"key '"} + key.name + "': " +
                    (holds_secrets(key) ? std::string{"a value"} : "'" + escaped(value) + "'") +
                    " is not valid UTF-8 (byte " + byte + " at offset " + std::to_string(bad) + ")");
}

// IPv4, or IPv6 in brackets (curl's --resolve spelling).
bool is_ip_literal(const std::string& text) {
  if (const auto ip = parse_ip_literal(text))
    return !ip->v6;
  return text.size() > 2 && text.front() == '[' && text.back() == ']' &&
         parse_ip_literal(std::string_view{text}.substr(1, text.size() - 2)).has_value();
}

// curl's --resolve syntax, [+]HOST:PORT:ADDRESS[,ADDRESS]..., checked here:
// curl takes a malformed entry without a word and then resolves nothing
// through it, so a typo would fail every fetch of the crawl.
void check_resolve_entry(const std::string& entry) {
  const auto refuse = [&](const std::string& why) {
    throw ConfigError("resolve: '" + escaped(entry) + "' " + why +
                      " (an entry is HOST:PORT:ADDRESS as curl --resolve takes it, e.g. example.com:443:127.0.0.1; "
                      "addresses of one name are comma-separated, [IPv6] in brackets; each name its own entry)");
  };
  std::string_view rest = entry;
  if (!rest.empty() && rest.front() == '+')
    rest.remove_prefix(1);
  const auto first = rest.find(':');
  if (first == std::string_view::npos || first == 0)
    refuse("has no HOST:PORT: before the address");
  const auto second = rest.find(':', first + 1);
  if (second == std::string_view::npos)
    refuse("has no address");
  const std::string port{rest.substr(first + 1, second - first - 1)};
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stol(port) < 1 || std::stol(port) > 65535)
    refuse("has no port from 1 to 65535");
  std::stringstream addresses{std::string{rest.substr(second + 1)}};
  std::string address;
  bool any = false;
  while (std::getline(addresses, address, ',')) {
    if (!is_ip_literal(address))
      refuse("names '" + escaped(address) + "', which is not an IP address");
    any = true;
  }
  if (!any)
    refuse("has no address");
}

}  // namespace

void validate(const CrawlConfig& config, bool seeds_required) {
  // seed_url and seeds share one list, named by its own key: backwards,
  // seeds comes first.
  std::vector<decltype(ConfigKey::member)> checked;
  const auto& keys = config_keys();
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    const ConfigKey& key = *it;
    if (std::find(checked.begin(), checked.end(), key.member) != checked.end())
      continue;
    checked.push_back(key.member);
    if (key.kind == ValueKind::text)
      require_utf8(key, config.*std::get<std::string C::*>(key.member));
    else if (key.kind == ValueKind::text_list)
      for (const auto& item : config.*std::get<std::vector<std::string> C::*>(key.member))
        require_utf8(key, item);
  }
  if (seeds_required && config.seeds.empty())
    throw ConfigError("no seed: give --seed URL, seed_url in the config file, or SEED=URL");
  for (const auto& seed : config.seeds) {
    UrlError why = UrlError::none;
    if (!Url::parse(seed, &why))
      throw ConfigError("seed '" + seed + "' is not a crawlable URL (" + to_string(why) + ")");
  }
  for (const auto& sitemap : config.sitemap_urls) {
    UrlError why = UrlError::none;
    if (!Url::parse(sitemap, &why))
      throw ConfigError("sitemap_urls: '" + escaped(sitemap) + "' is not a crawlable URL (" + to_string(why) + ")");
  }
  if (!config.sitemap_urls.empty() && !config.sitemaps_enabled())
    throw ConfigError("sitemap_urls names sitemaps to read, and sitemaps is false (" +
                      config.given.at("sitemaps") + ")");
  for (const auto& entry : config.resolve)
    check_resolve_entry(entry);
  if (config.db_path.empty())
    throw ConfigError("db_path must not be empty");
  if (config.revisit_min_ms > 0 && config.revisit_max_ms > 0 && config.revisit_min_ms > config.revisit_max_ms)
    throw ConfigError("revisit_min (" + std::to_string(config.revisit_min_ms) + " ms) must not exceed revisit_max (" +
                      std::to_string(config.revisit_max_ms) + " ms)");
  if (config.adaptive_revisit && config.revisit_after_ms == 0)
    throw ConfigError("adaptive_revisit needs revisit_after: the interval it starts from");
  if (config.warc_dir.empty())
    throw ConfigError("warc_dir must not be empty");
  // The prefix names files: nothing that could leave warc_dir or need quoting.
  if (config.warc_prefix.empty() ||
      config.warc_prefix.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
        std::string::npos ||
      config.warc_prefix[0] == '.')
    throw ConfigError("warc_prefix: '" + escaped(config.warc_prefix) +
                      "' is not a file name prefix (letters, digits, '.', '_', '-'; not starting with '.')");
  if (!config.proxy.empty()) {
    // Never repeated in a message: a proxy URL may hold a password.
    static const char* const schemes[] = {"http://", "https://", "socks4://", "socks4a://", "socks5://", "socks5h://"};
    const bool known = std::any_of(std::begin(schemes), std::end(schemes), [&](const char* scheme) {
      return config.proxy.rfind(scheme, 0) == 0 && config.proxy.size() > std::strlen(scheme);
    });
    const bool one_token = std::none_of(config.proxy.begin(), config.proxy.end(), [](char c) {
      return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
    });
    if (!known || !one_token)
      throw ConfigError("proxy: not a proxy URL (http://, https://, socks4://, socks5:// or socks5h:// and HOST:PORT)");
    if (config.proxy_from_environment)
      throw ConfigError("proxy and proxy_from_environment: give one (a proxy, or those the environment names)");
    if (config.block_private_networks)
      throw ConfigError("proxy: block_private_networks cannot hold through a proxy, which connects to the sites "
                        "itself; give one of them");
  }
  for (const auto& key : config.service_job_request_keys)
    if (std::find(job_request_key_names().begin(), job_request_key_names().end(), key) == job_request_key_names().end())
      throw ConfigError("service_job_request_keys: '" + escaped(key) + "' is not one of headers, auth, cookies, proxy");
  if (!config.cookies_file.empty() && !config.cookies)
    throw ConfigError("cookies_file names cookies to send, and cookies is false (" +
                      (config.given.count("cookies") != 0 ? config.given.at("cookies") : std::string{"set"}) +
                      "): give one of them");
  const int tls_parts = !config.tls_cert.empty() + !config.tls_key.empty() + !config.tls_ca.empty();
  if (tls_parts != 0 && tls_parts != 3)
    throw ConfigError("TLS needs all of tls_cert, tls_key and tls_ca (--tls-cert, --tls-key, --tls-ca)");
  if (tls_parts == 3)
    if (auto error = check_tls_files(config.tls_cert, config.tls_key, config.tls_ca); !error.empty())
      throw ConfigError(error);
}

std::optional<CrawlProfile> profile_using(const std::string& key) {
  // Read by the site profile's frontier (traps, leases) and link selection
  // (scope, patterns, parameters) only.
  static const char* const site_only[] = {
    "scope", "allowed_domains", "exclude_patterns", "follow_patterns", "strip_query_params", "max_leases_per_host",
    "revisit_check_interval", "max_url_length", "max_repeated_path_segments", "max_pages_per_host",
    "max_query_variants_per_path"};
  // Read by the domain graph's frontier and link filter only.
  static const char* const domains_only[] = {"max_crawls_per_node", "max_subdomains_per_root", "max_outbound_links",
                                             "excluded_domains"};
  for (const char* k : site_only)
    if (key == k)
      return CrawlProfile::site;
  for (const char* k : domains_only)
    if (key == k)
      return CrawlProfile::domains;
  return std::nullopt;
}

void check_profile_keys(const CrawlConfig& config) {
  static const CrawlConfig defaults;
  const CrawlProfile profile = config.crawl_profile();
  for (const auto& [name, where] : config.given) {
    const auto user = profile_using(name);
    if (!user || *user == profile)
      continue;
    const ConfigKey& key = *find_key(name);
    const bool is_default = std::visit(
      [&](auto member) { return config.*member == defaults.*member; }, key.member);
    if (is_default)
      continue;
    throw ConfigError(where + ": key '" + name + "' is used only by the " + to_string(*user) +
                      " profile, and this crawl's profile is " + to_string(profile) + " (set profile: " +
                      to_string(*user) + ", or remove the key)");
  }
}

void apply_config_sources(const std::vector<std::string>& args, CrawlConfig& config,
                          const std::string& help_command) {
  if (auto path = config_path_from_args(args); !path.empty())
    apply_yaml_file(path, config);
  apply_environment(config, [](const char* name) { return std::getenv(name); });
  auto leftover = apply_command_line(args, config);
  if (!leftover.empty())
    throw ConfigError("unexpected argument '" + leftover.front() + "' (see " + help_command + ")");
}

bool NodeAddress::loopback_only() const {
  if (host == "localhost")
    return true;
  // A numeric address in 127.0.0.0/8 or ::1; anything else (0.0.0.0, ::, a
  // name, another address) may be reachable from elsewhere.
  const auto ip = parse_ip_literal(host);
  return ip && ip->loopback();
}

NodeAddress parse_node_address(const std::string& text, const std::string& key) {
  NodeAddress out;
  std::string port_text = text;
  if (const auto colon = text.rfind(':'); colon != std::string::npos) {
    out.host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']')
      out.host = out.host.substr(1, out.host.size() - 2);  // [::1]:7788
  }
  if (out.host.empty())
    out.host = "127.0.0.1";
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != std::string::npos || std::stol(port_text) > 65535)
    throw ConfigError(key + ": '" + text + "' is not HOST:PORT (a port from 0 to 65535)");
  out.port = static_cast<std::uint16_t>(std::stol(port_text));
  return out;
}

namespace {

// A YAML double-quoted scalar: JSON's string syntax is a subset of it.
std::string yaml_quoted(const std::string& text) {
  return json_text(nlohmann::json(text));
}

std::string yaml_value(const ConfigKey& key, const CrawlConfig& c) {
  switch (key.kind) {
    case ValueKind::integer:
    case ValueKind::bytes:
    case ValueKind::duration_ms:
      return std::to_string(c.*std::get<std::int64_t C::*>(key.member));
    case ValueKind::boolean:
      return c.*std::get<bool C::*>(key.member) ? "true" : "false";
    case ValueKind::text:
      return yaml_quoted(c.*std::get<std::string C::*>(key.member));
    case ValueKind::text_list: {
      std::string out = "[";
      const auto& v = c.*std::get<std::vector<std::string> C::*>(key.member);
      for (std::size_t i = 0; i < v.size(); ++i) {
        // An object item is JSON, which YAML reads as a flow mapping.
        const bool object = key.object_items && !v[i].empty() && v[i].front() == '{';
        out += (i ? ", " : "") + (object ? v[i] : yaml_quoted(v[i]));
      }
      return out + "]";
    }
    case ValueKind::structured: {
      const auto& v = c.*std::get<std::string C::*>(key.member);
      return v.empty() ? "[]" : v;
    }
  }
  return {};
}

}  // namespace

std::string default_config_yaml() {
  const CrawlConfig defaults;
  std::ostringstream out;
  out << "# actorcrawl configuration: every key, at its default, in the order of\n"
         "# `actorcrawl --help`. Generated by `actorcrawl --default-config`; a unit\n"
         "# test keeps this file equal to it. Copy and edit, then\n"
         "#   actorcrawl crawl --config my.yaml\n"
         "# Flags (--max-pages 50) and environment variables (ACTORCRAWL_MAX_PAGES=50,\n"
         "# CRAWL_DELAY_MS, SEED) override what is written here. Unknown keys, wrong\n"
         "# types and impossible values are refused with the key and line named.\n"
         "# Durations are milliseconds unless given a unit (500ms, 2s, 1m, 24h); sizes\n"
         "# are bytes unless given one (64KiB, 1MiB).\n";
  for (const auto& key : config_keys())
    out << "\n# " << key.help << (key.shown_default ? std::string{" (default: "} + key.shown_default + ")" : "")
        << "\n"
        << key.name << ": " << yaml_value(key, defaults) << "\n";
  return out.str();
}

std::string config_yaml(const CrawlConfig& config) {
  std::ostringstream out;
  for (const auto& key : config_keys())
    if (std::string_view{key.name} != "seed_url")
      out << key.name << ": " << yaml_value(key, config) << "\n";
  return out.str();
}

std::string options_help() {
  std::ostringstream out;
  for (const auto& key : config_keys()) {
    std::string flags = flag_of(key.name);
    if (key.kind == ValueKind::duration_ms && flags.size() > 3 && flags.compare(flags.size() - 3, 3, "-ms") == 0)
      flags = flags.substr(0, flags.size() - 3) + ", " + flags;
    for (const auto& a : aliases())
      if (std::string{a.key} == key.name && std::string{key.name} != "seed_url")
        flags = std::string{a.flag} + ", " + flags;
    out << "  " << flags << "\n      " << key.help << " [" << key.name << ", default " << default_text(key) << "]\n";
  }
  return out.str();
}

}  // namespace actorcrawl
