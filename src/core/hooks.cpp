// The registry of extension hooks (hooks.hpp).
#include "core/hooks.hpp"

#include "util/log.hpp"

namespace gannet::runtime {

std::atomic<bool> g_user_progress_hooks{false};

namespace hooks_detail {
hook_list<bool (*)()> g_poll, g_finish;
}  // namespace hooks_detail

namespace {
using hooks_detail::hook_list;
using hooks_detail::max_hooks;

hook_list<void (*)()> g_attach, g_detach, g_sync_point, g_incoming, g_before_user_progress;
hook_list<void (*)(std::uintptr_t)> g_barrier_done;
hook_list<void (*)(int, std::uintptr_t, std::uintptr_t, bool)> g_before_rma;

template <typename Fn>
void add(hook_list<Fn>& list, Fn fn, const char* name) {
  if (!fn) return;
  if (list.n == max_hooks) util::fatal("internal: more than %d extensions hook the same point (%s)", max_hooks, name);
  list.fn[list.n++] = fn;
}
}  // namespace

void register_extension(const extension_hooks& h) {
  add(g_attach, h.attach, h.name);
  add(g_detach, h.detach, h.name);
  add(hooks_detail::g_poll, h.poll, h.name);
  add(hooks_detail::g_finish, h.finish, h.name);
  add(g_barrier_done, h.barrier_done, h.name);
  add(g_sync_point, h.sync_point, h.name);
  add(g_incoming, h.incoming, h.name);
  add(g_before_rma, h.before_rma, h.name);
  add(g_before_user_progress, h.before_user_progress, h.name);
}

void run_attach_hooks() {
  for (int i = 0; i < g_attach.n; ++i) g_attach.fn[i]();
}
void run_detach_hooks() {
  for (int i = 0; i < g_detach.n; ++i) g_detach.fn[i]();
}
void run_barrier_done_hooks(std::uintptr_t call_site) {
  for (int i = 0; i < g_barrier_done.n; ++i) g_barrier_done.fn[i](call_site);
}
void run_sync_point_hooks() {
  for (int i = 0; i < g_sync_point.n; ++i) g_sync_point.fn[i]();
}
void run_incoming_hooks() {
  for (int i = 0; i < g_incoming.n; ++i) g_incoming.fn[i]();
}
void run_before_rma_hooks(int rank, std::uintptr_t lo, std::uintptr_t hi, bool put) {
  for (int i = 0; i < g_before_rma.n; ++i) g_before_rma.fn[i](rank, lo, hi, put);
}
void run_before_user_progress_hooks() {
  for (int i = 0; i < g_before_user_progress.n; ++i) g_before_user_progress.fn[i]();
}

}  // namespace gannet::runtime

// Atomics on this machine and notified puts call this inline when sync_hooks_live().
void upcxx::detail::sync_hooks_slow() { gannet::runtime::run_sync_point_hooks(); }
