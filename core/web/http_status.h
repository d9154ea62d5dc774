// What an HTTP status means to the crawler, where more than one place asks.
#pragma once

namespace actorcrawl {

// A redirect the crawler may take: 3xx with a Location to go to, except 304
// (Not Modified), which points nowhere.
inline bool is_redirect_status(int status) { return status >= 300 && status < 400 && status != 304; }

}  // namespace actorcrawl
