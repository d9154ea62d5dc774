#include "core/sitemap/xml_markup_guard.h"

#include <cstring>

namespace actorcrawl {

std::size_t XmlMarkupGuard::scan(std::string_view bytes) {
  if (tripped_) return 0;
  const char* const data = bytes.data();
  const std::size_t size = bytes.size();
  std::size_t i = 0;
  while (i < size) {
    if (state_ == State::text) {
      const void* lt = std::memchr(data + i, '<', size - i);
      if (lt == nullptr) return npos;
      i = static_cast<const char*>(lt) - data + 1;
      state_ = State::lt;
      markup_bytes_ = 1;
      continue;
    }
    const char c = data[i];
    if (++markup_bytes_ > kMaxMarkupBytes) {
      tripped_ = true;
      return i;
    }
    ++i;
    switch (state_) {
      case State::lt:
        quote_ = 0;
        run_ = 0;
        if (c == '!') {
          state_ = State::bang;
        } else if (c == '?') {
          state_ = State::pi;
        } else if (c == '/') {
          state_ = State::end_tag;
        } else {
          state_ = State::start_tag;
          attributes_ = 0;
        }
        break;
      case State::bang:
        if (c == '-') {
          state_ = State::bang_dash;
        } else if (c == '[') {
          state_ = State::cdata;
        } else {
          state_ = c == '>' ? State::text : State::decl;
          brackets_ = 0;
        }
        break;
      case State::bang_dash:
        state_ = c == '-' ? State::comment : State::decl;
        brackets_ = 0;
        break;
      case State::cdata:
        // Only "]]>" ends it.
        if (c == ']') {
          ++run_;
        } else {
          if (c == '>' && run_ >= 2) state_ = State::text;
          run_ = 0;
        }
        break;
      case State::comment:
      case State::decl_comment:
        if (c == '-') {
          ++run_;
        } else {
          if (c == '>' && run_ >= 2) state_ = state_ == State::comment ? State::text : State::decl;
          run_ = 0;
        }
        break;
      case State::pi:
      case State::decl_pi:
        if (c == '>' && run_ > 0) state_ = state_ == State::pi ? State::text : State::decl;
        run_ = c == '?' ? 1 : 0;
        break;
      case State::end_tag:
        if (c == '>') state_ = State::text;
        break;
      case State::start_tag:
        if (quote_ != 0) {
          if (c == quote_) quote_ = 0;
        } else if (c == '"' || c == '\'') {
          quote_ = c;
        } else if (c == '=') {
          if (++attributes_ > kMaxAttributes) {
            tripped_ = true;
            return i - 1;
          }
        } else if (c == '>') {
          state_ = State::text;
        }
        break;
      case State::decl:
        if (quote_ != 0) {
          if (c == quote_) quote_ = 0;
        } else if (c == '"' || c == '\'') {
          quote_ = c;
        } else if (c == '[') {
          ++brackets_;
        } else if (c == ']') {
          if (brackets_ > 0) --brackets_;
        } else if (c == '<' && brackets_ > 0) {
          state_ = State::decl_lt;
        } else if (c == '>' && brackets_ == 0) {
          state_ = State::text;
        }
        break;
      case State::decl_lt:
        run_ = 0;
        state_ = c == '!' ? State::decl_bang : c == '?' ? State::decl_pi : State::decl;
        break;
      case State::decl_bang:
        state_ = c == '-' ? State::decl_bang_dash : State::decl;
        if (c == '"' || c == '\'') quote_ = c;
        break;
      case State::decl_bang_dash:
        state_ = c == '-' ? State::decl_comment : State::decl;
        run_ = 0;
        break;
      case State::text:
        break;
    }
  }
  return npos;
}

}  // namespace actorcrawl
