// Runs the handlers of up to `max` messages waiting in `mine`, in place (shared by the smp
// transport and the MPI transport's on-machine rings); returns whether it ran any.
#pragma once

#include <sched.h>

#include <cstdlib>
#include <span>

#include "transport/shm/ring.hpp"
#include "transport/transport.hpp"
#include "util/log.hpp"
#include "util/observe.hpp"

namespace gannet::smp {

inline bool dispatch_ring(ring& mine, const transport::am_handler (&handlers)[transport::max_am_handlers], int max) {
  bool did = false;
  for (int i = 0; i < max; ++i) {
    bool got = mine.consume_one([&](const ring_message_header& h) {
      const char* body = ring::body_of(h);
      transport::am_handler fn = h.handler < transport::max_am_handlers ? handlers[h.handler] : nullptr;
      if (!fn) util::fatal("active message from rank %d for unregistered handler %u", h.source, h.handler);
      const std::size_t bytes = h.header_bytes + h.payload_bytes;
      fn(transport::am_message{h.source, std::as_bytes(std::span(body, h.header_bytes)),
                               std::as_bytes(std::span(body + h.header_bytes, h.payload_bytes))});
      if (observe::on()) [[unlikely]] observe::received(bytes);  // after: off the handler's path
    });
    if (!got) break;
    did = true;
  }
  return did;
}

// Runs the handlers of every message reserved in `mine` before the call, waiting for any
// that its sender is still writing (between reserve and publish it never blocks); returns
// whether it ran any. After a barrier: a sender's reservation happened before it arrived, so
// the tail read here, after our acquire of the barrier's completion, covers it.
template <typename Aborting>
bool drain_ring(ring& mine, const transport::am_handler (&handlers)[transport::max_am_handlers], Aborting&& aborting) {
  const std::uint64_t end = mine.tail();
  bool did = false;
  unsigned spins = 0;
  while (mine.head() < end) {
    if (dispatch_ring(mine, handlers, 64)) {
      did = true;
      continue;
    }
    if (aborting()) std::_Exit(1);  // the launcher is ending the job
    if (++spins > 64) ::sched_yield();
  }
  return did;
}

}  // namespace gannet::smp
