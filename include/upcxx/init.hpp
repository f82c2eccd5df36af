// Library state (spec chapter 2) and progress (chapter 10, the part this release needs).
//
// init() and finalize() are collective over every rank of the job and nest: only the first
// init() initializes and only the matching finalize() uninitializes, after a barrier.
// rank_me()/rank_n() are the caller's rank in team world() and its size. progress() polls
// the transport and runs ready callbacks (user level) or only internal work (internal).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/detail/source_loc.hpp"
#include "upcxx/detail/diagnostics.hpp"
#include "upcxx/detail/state.hpp"

namespace upcxx {

namespace detail {
// `par`: the program was compiled with UPCXX_THREADMODE=par, so the runtime serializes
// its internal state across threads (a lock the seq threadmode does without).
// `debug`: debug codemode, which turns on runtime diagnostics (the attentiveness watch).
void init_library(bool par, bool debug);
}  // namespace detail

inline void init() {
#ifdef UPCXX_THREADMODE
  constexpr bool par = true;
#else
  constexpr bool par = false;
#endif
  detail::init_library(par, UPCXX_ASSERT_ENABLED);
}
void finalize();
bool initialized();

inline intrank_t rank_me(detail::source_loc loc = detail::source_loc::current()) {
  detail::check_init("upcxx::rank_me()", loc);
  return detail::g_state.rank_me;
}

inline intrank_t rank_n(detail::source_loc loc = detail::source_loc::current()) {
  detail::check_init("upcxx::rank_n()", loc);
  return detail::g_state.rank_n;
}

enum class progress_level { internal, user };

void progress(progress_level level = progress_level::user);

// Environment of the spawning console (spec §2.3 ¶17); the same as std::getenv on one machine.
char* getenv_console(const char* env_var);

}  // namespace upcxx
