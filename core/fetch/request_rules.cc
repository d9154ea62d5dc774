#include "core/fetch/request_rules.h"

#include "core/fetch/header_field.h"

#include <re2/re2.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace actorcrawl {

namespace {

// Ordered: a mapping's headers go in the order they were written.
using json = nlohmann::ordered_json;

// Without optional whitespace (RFC 9110 5.6.3: spaces and tabs).
std::string trimmed(std::string_view text) {
  return std::string{ascii::trim_if(text, [](char c) { return c == ' ' || c == '\t'; })};
}

}  // namespace

struct RequestRules::Impl {
  struct Headers {
    std::unique_ptr<RE2> hosts;  // null: every host
    std::vector<std::string> lines;
  };
  struct Auth {
    std::unique_ptr<RE2> hosts;
    std::string basic;
    std::string bearer;
  };
  std::vector<Headers> headers;
  std::vector<Auth> auth;
};

RequestRules::RequestRules() : impl_(std::make_unique<Impl>()) {}
RequestRules::~RequestRules() = default;

std::unique_ptr<RequestRules> RequestRules::make(const std::vector<std::string>& headers,
                                                 const std::vector<std::string>& auth, std::string* error) {
  std::unique_ptr<RequestRules> rules(new RequestRules());
  RE2::Options options;
  options.set_log_errors(false);
  // "headers: entry 2: ..." with what is wrong.
  auto fail = [&](const char* key, std::size_t index, const std::string& what) -> std::unique_ptr<RequestRules> {
    if (error != nullptr)
      *error = std::string{key} + ": entry " + std::to_string(index + 1) + ": " + what;
    return nullptr;
  };
  auto hosts_pattern = [&](const json& entry, std::unique_ptr<RE2>& into) -> std::optional<std::string> {
    const auto hosts = entry.find("hosts");
    if (hosts == entry.end())
      return std::nullopt;
    if (!hosts->is_string() || hosts->get_ref<const std::string&>().empty())
      return std::string{"'hosts' must be a regular expression (RE2) for the host name"};
    into = std::make_unique<RE2>(hosts->get<std::string>(), options);
    if (!into->ok())
      return "'hosts': invalid regular expression '" + hosts->get<std::string>() + "': " + into->error();
    return std::string{};
  };

  for (std::size_t i = 0; i < headers.size(); ++i) {
    const std::string& text = headers[i];
    Impl::Headers rule;
    if (text.empty() || text.front() != '{') {
      const auto colon = text.find(':');
      if (colon == std::string::npos)
        return fail("headers", i, "a header is 'Name: value' or a mapping of names to values");
      const std::string name = trimmed(std::string_view{text}.substr(0, colon));
      if (!is_field_name(name))
        return fail("headers", i, "'" + name + "' is not a header name");
      if (!is_field_value(text.substr(colon + 1)))
        return fail("headers", i, "the value of " + name + " holds a control character");
      rule.lines.push_back(name + ": " + trimmed(std::string_view{text}.substr(colon + 1)));
    } else {
      const json entry = json::parse(text, nullptr, false);
      if (!entry.is_object())
        return fail("headers", i, "not a mapping");
      if (auto hosts = hosts_pattern(entry, rule.hosts); hosts && !hosts->empty())
        return fail("headers", i, *hosts);
      for (const auto& [name, value] : entry.items()) {
        if (name == "hosts")
          continue;
        if (!is_field_name(name))
          return fail("headers", i, "'" + name + "' is not a header name");
        if (!value.is_string() && !value.is_number() && !value.is_boolean())
          return fail("headers", i, "the value of " + name + " must be text");
        const std::string text_value = value.is_string() ? value.get<std::string>() : value.dump();
        if (!is_field_value(text_value))
          return fail("headers", i, "the value of " + name + " holds a control character");
        rule.lines.push_back(name + ": " + text_value);
      }
      if (rule.lines.empty())
        return fail("headers", i, "no header");
    }
    rules->impl_->headers.push_back(std::move(rule));
  }

  for (std::size_t i = 0; i < auth.size(); ++i) {
    const json entry = json::parse(auth[i], nullptr, false);
    if (!entry.is_object())
      return fail("auth", i, "an entry is a mapping: {hosts: RE2, basic: 'user:password'} or {hosts: RE2, bearer: TOKEN}");
    Impl::Auth rule;
    const auto hosts = hosts_pattern(entry, rule.hosts);
    if (!hosts)
      return fail("auth", i, "'hosts' is required: credentials go only to the hosts it matches");
    if (!hosts->empty())
      return fail("auth", i, *hosts);
    for (const auto& [name, value] : entry.items()) {
      if (name == "hosts")
        continue;
      if (name != "basic" && name != "bearer")
        return fail("auth", i, "unknown field '" + name + "' (known: hosts, basic, bearer)");
      if (!value.is_string() || value.get_ref<const std::string&>().empty())
        return fail("auth", i, "'" + name + "' must be text");
      if (!is_field_value(value.get_ref<const std::string&>()))
        return fail("auth", i, "'" + name + "' holds a control character");
      (name == "basic" ? rule.basic : rule.bearer) = value.get<std::string>();
    }
    if (rule.basic.empty() == rule.bearer.empty())
      return fail("auth", i, "give one of 'basic' (user:password) and 'bearer' (a token)");
    if (!rule.basic.empty() && rule.basic.find(':') == std::string::npos)
      return fail("auth", i, "'basic' is user:password");
    rules->impl_->auth.push_back(std::move(rule));
  }
  return rules;
}

void RequestRules::apply(const Url& url, FetchRequest& request) const {
  const std::string host = url.host();
  for (const auto& rule : impl_->headers)
    if (rule.hosts == nullptr || RE2::PartialMatch(host, *rule.hosts))
      request.headers.insert(request.headers.end(), rule.lines.begin(), rule.lines.end());
  for (const auto& rule : impl_->auth) {
    if (!RE2::PartialMatch(host, *rule.hosts))
      continue;
    request.basic_auth = rule.basic;
    request.bearer_token = rule.bearer;
    break;
  }
}

bool RequestRules::empty() const { return impl_->headers.empty() && impl_->auth.empty(); }

}  // namespace actorcrawl
