#include "messages/catalogue.h"

#include <caf/io/middleman.hpp>

namespace actorcrawl {

void register_messages(caf::actor_system_config& config) {
  config.add_message_types<caf::id_block::actorcrawl>();
  config.load<caf::io::middleman>();
}

}  // namespace actorcrawl
