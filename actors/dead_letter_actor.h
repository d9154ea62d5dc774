// DeadLetterActor: where URLs go that failed after every retry. It records
// each with its reason (dead_letters, and the page row with the error),
// settles it in the Frontier, and re-drives stored dead letters back into
// the Frontier when asked (redrive_atom).
#pragma once

#include <caf/fwd.hpp>

namespace actorcrawl {

caf::actor spawn_dead_letter(caf::actor_system& sys);

}  // namespace actorcrawl
