// Signals that carry no data: name and text (at most 10 characters of
// [0-9A-Za-z_ ], or two atoms collide). One list, expanded below into the
// atom types; the catalogue test walks it too.
#pragma once

#include <caf/atom.hpp>
#include <caf/type_id.hpp>

#define ACTORCRAWL_ATOMS(X)          \
  X(drain_atom, "drain")             \
  X(progress_atom, "progress")       \
  X(flush_atom, "flush")             \
  X(tick_atom, "tick")               \
  X(ok_atom, "ok")                   \
  X(timings_atom, "timings")         \
  X(workers_atom, "workers")         \
  X(lanes_atom, "lanes")

#define ACTORCRAWL_ADD_ATOM(name, text) CAF_ADD_ATOM(actorcrawl, actorcrawl, name, text)
ACTORCRAWL_ATOMS(ACTORCRAWL_ADD_ATOM)
#undef ACTORCRAWL_ADD_ATOM
