// Remote procedure calls, the non-template side: what remains here is attach (the
// handlers' registration and the batch sizes), the definitions of the shared state
// (rpc_state.hpp) and the progress-level scopes. The rest:
//   outgoing.cpp       batches, send/try_send, flush, large-record sends and their drain,
//                      runtime-message sends
//   incoming.cpp       the active-message handlers: dispatch of calls, replies and runtime
//                      messages, fragments, large records read in place or fetched
//   backlog.cpp        calls that arrived while they could not run, and barriers' delivery
//   dist_registry.cpp  the dist_object registry, and calls parked until an object exists
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <unordered_map>
#include <vector>

#include "rpc/rpc_internal.hpp"
#include "rpc/rpc_state.hpp"
#include "transport/transport.hpp"
#include "upcxx/detail/backend_gasnet.hpp"
#include "util/log.hpp"

namespace gannet::runtime::rpc_impl {

std::size_t g_batch_bytes = batch_bytes_max;
std::size_t g_batch_record_max = batch_bytes_max / 4;
rpc_state g_rpc;
constinit thread_local bool t_direct = false;
constinit thread_local int t_in_handler = 0;
std::size_t g_max_inline = 0;
std::atomic<bool> g_batched{false};
bool g_send_now = false;
std::atomic<bool> g_sent_to_self{false};
std::unordered_map<upcxx::intrank_t, inbound> g_inbound;
std::vector<batch_buffer> g_spare_batches;

}  // namespace gannet::runtime::rpc_impl

namespace upcxx::detail {
void prepare_function_table();  // fn_table.cpp
}
namespace gannet::runtime {

using namespace rpc_impl;

void rpc_attach(transport::transport& tp) {
  upcxx::detail::prepare_function_table();
  if (!tp.caps().active_messages) util::fatal("the %s transport has no active messages", tp.name());
  g_max_inline = tp.caps().am_max_medium;
  // A record of more bytes than this takes the large-message path (send()).
  upcxx::backend::gasnet::am_size_rdzv_cutover = g_max_inline;
  g_batch_bytes = std::min(batch_bytes_max, g_max_inline & ~std::size_t{15});
  g_batch_record_max = g_batch_bytes / 4;
  st().batches.resize(static_cast<std::size_t>(tp.rank_n()));
  // Most calls leave alone (send()'s immediate path), so a rank may take the batching path
  // first long after start-up, when a ring is full: its first list entry and buffer are
  // made here, and a steady run allocates nothing however rarely it batches.
  st().dirty.reserve(16);
  g_spare_batches.reserve(spare_batch_buffers);
  if (g_spare_batches.empty())
    g_spare_batches.push_back(batch_buffer(static_cast<std::byte*>(::operator new(g_batch_bytes, std::align_val_t{16}))));
  tp.am_register(am_batch, on_batch);
  tp.am_register(am_large, on_large);
  tp.am_register(am_large_done, on_large_done);
  tp.am_register(am_fragment, on_fragment);
}



}  // namespace gannet::runtime
