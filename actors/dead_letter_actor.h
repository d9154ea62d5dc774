// DeadLetterActor: where URLs go that failed after every retry. It records
// the page row with the error, and for a definite failure a dead letter
// (which `actorcrawl redrive` can queue again); then it tells the Frontier,
// which settles the URL or, for a transient failure, parks it.
#pragma once

#include <caf/fwd.hpp>

#include "messages/interfaces.h"

namespace actorcrawl {

dead_letter_actor spawn_dead_letter(caf::actor_system& sys);

}  // namespace actorcrawl
