// The bundled demo web, crawled by `actorcrawl crawl` given no seed and by
// `actorcrawl serve --demo-web`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "demoweb/loopback_web.h"

namespace actorcrawl::demoweb {

// The bundled demo web crawled when `actorcrawl crawl` is given no seed:
// three hosts (127.0.0.1-3) linking in a loop, a few pages each, a dead link
// (404), a non-HTML file (PDF), a redirect, and an off-site link.
struct DemoWeb {
  std::unique_ptr<LoopbackWeb> web;
  std::string seed_url;
  std::vector<std::string> host_keys;
  // The hosts without their ports: what allowed_domains needs to keep a
  // crawl on the demo web.
  std::vector<std::string> host_names() const {
    std::vector<std::string> out;
    for (const auto& key : host_keys)
      out.push_back(key.substr(0, key.rfind(':')));
    return out;
  }
};
DemoWeb start_demo_web();

}  // namespace actorcrawl::demoweb
