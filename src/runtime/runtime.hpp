// Internal runtime services shared by the files of src/runtime (not API).
#pragma once

#include "runtime/heap_allocator.hpp"

namespace gannet::transport {
class transport;
}

namespace gannet::runtime {

transport::transport& the_transport();
heap_allocator& my_heap();

// Makes user-level progress until done(arg) is true; exits the process quietly when the
// launcher is tearing the job down (it has already reported the cause).
void wait_until_aborting_or(bool (*done)(void*), void* arg);

}  // namespace gannet::runtime
