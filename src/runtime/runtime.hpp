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

// Threadmode par: one recursive lock serializes the transport and the RPC state between
// threads (the transports are not thread-safe; see capabilities::thread_safe). In seq mode
// the guard costs one predictable branch.
void enable_thread_safety();

// How many idle polls a waiting loop makes before it yields the core: few when this
// machine runs more ranks than it has cores (chosen at init).
unsigned spin_limit();
void choose_spin_limit(int local_ranks);
class runtime_lock {
 public:
  runtime_lock();
  ~runtime_lock();
  runtime_lock(const runtime_lock&) = delete;
  runtime_lock& operator=(const runtime_lock&) = delete;

 private:
  bool locked_;
};

// Releases every level of the runtime lock the calling thread holds, for the lifetime of
// the object, around user code that runs inside the library (an RPC's body): user code may
// take its own locks, and a thread holding one of them while it calls into the library
// would otherwise deadlock against us.
class runtime_unlock {
 public:
  runtime_unlock();
  ~runtime_unlock();
  runtime_unlock(const runtime_unlock&) = delete;
  runtime_unlock& operator=(const runtime_unlock&) = delete;

 private:
  int levels_;
};

}  // namespace gannet::runtime
