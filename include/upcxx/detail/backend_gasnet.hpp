// Names of the reference implementation's GASNet backend that programs use
// (upcxx::backend::gasnet): the message size at which RPCs change protocol.
//
// am_size_rdzv_cutover is the largest RPC, in bytes on the wire (the serialized arguments
// plus Gannet's per-call header), that travels inside one message; a larger one takes the
// large-message path (its bytes are copied into the sender's shared heap and read from there
// by the target, or sent in pieces when the heap is full). Programs size their RPC payloads
// by it. It depends on the transport (smp or MPI), so it is a variable set by init(): 0
// before. Read-only for programs.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>

namespace upcxx::backend::gasnet {

// The smallest value am_size_rdzv_cutover can have, as in UPC++.
inline constexpr std::size_t am_size_rdzv_cutover_min = 256;

extern std::size_t am_size_rdzv_cutover;

}  // namespace upcxx::backend::gasnet
