// What the sites require of a crawl's requests, chosen by host: extra
// header lines (config key `headers`) and HTTP credentials (`auth`). Made
// once from the configuration's entries; each request adds what its URL's
// host requires (FetchRequest::headers, basic_auth, bearer_token), and the
// engine sends them to that origin only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/fetch/fetch_engine.h"
#include "core/web/url.h"

namespace actorcrawl {

class RequestRules {
 public:
  // `headers` entries: a header line "Name: value" (every host), or a JSON
  // object of header names to values with an optional "hosts" (an RE2
  // pattern searched in the host name, without the port) that limits them.
  // `auth` entries: JSON objects {"hosts": RE2, "basic": "user:password"} or
  // {"hosts": RE2, "bearer": "token"}; "hosts" is required, since
  // credentials for every host would go to every site the crawl reaches.
  // An entry that is wrong is reported through `error` (its key, its
  // position, what is wrong: never a value, which may be a secret) and
  // make() returns nullptr.
  static std::unique_ptr<RequestRules> make(const std::vector<std::string>& headers,
                                            const std::vector<std::string>& auth, std::string* error);
  ~RequestRules();

  // Adds what `url`'s host requires: every header entry whose hosts match,
  // in the configuration's order; the first auth entry whose hosts match.
  void apply(const Url& url, FetchRequest& request) const;

  bool empty() const;

 private:
  RequestRules();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actorcrawl
