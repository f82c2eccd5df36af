// The off-node path of remote atomics (include/upcxx/atomic.hpp): a runtime message to the
// owner of the datum, which applies the same CPU atomic as the on-node path (so the two paths
// stay atomic with respect to each other) and replies with the value it read. The owner
// handles the request at any progress level (internal progress suffices, spec 13.3: atomics
// need no user-level progress at their target).
#include <cstdint>
#include <cstring>
#include <string>

#include "rpc/rpc_internal.hpp"
#include "core/runtime.hpp"
#include "upcxx/atomic.hpp"
#include "util/log.hpp"

namespace upcxx::detail {

namespace rt = gannet::runtime;
namespace {

struct amo_request {
  std::uint64_t addr;    // the datum, in the owner's address space (its own)
  std::uint64_t v1, v2;  // operands, in the low bytes
  std::uint64_t result;  // initiator's landing place for the value read (0: none)
  std::uint64_t op;      // initiator's rma_op
  std::uint8_t code, type, order, size, unused[4];
};
struct amo_reply {
  std::uint64_t result;
  std::uint64_t op;
  std::uint64_t value;  // sizeof(T) bytes at its start
  std::uint64_t size;
};

template <typename T>
std::uint64_t apply_as(const amo_request& rq) {
  T v1, v2;
  std::memcpy(&v1, &rq.v1, sizeof(T));
  std::memcpy(&v2, &rq.v2, sizeof(T));
  T old = amo_apply<T>(reinterpret_cast<T*>(rq.addr), static_cast<amo_code>(rq.code), v1, v2,
                       static_cast<std::memory_order>(rq.order));
  std::uint64_t out = 0;
  std::memcpy(&out, &old, sizeof(T));
  return out;
}

}  // namespace

void on_request(int source, const std::byte* payload, std::size_t bytes) {
  amo_request rq;
  if (bytes < sizeof rq) gannet::util::fatal("corrupt atomic request from rank %d", source);
  std::memcpy(&rq, payload, sizeof rq);
  amo_reply rp{rq.result, rq.op, 0, rq.size};
  switch (static_cast<amo_type>(rq.type)) {
    case amo_type::i32: rp.value = apply_as<std::int32_t>(rq); break;
    case amo_type::u32: rp.value = apply_as<std::uint32_t>(rq); break;
    case amo_type::i64: rp.value = apply_as<std::int64_t>(rq); break;
    case amo_type::u64: rp.value = apply_as<std::uint64_t>(rq); break;
    case amo_type::f32: rp.value = apply_as<float>(rq); break;
    case amo_type::f64: rp.value = apply_as<double>(rq); break;
    default: gannet::util::fatal("atomic request from rank %d with unknown type %u", source, rq.type);
  }
  rt::internal_send(source, rt::internal_id::amo_reply, &rp, sizeof rp);
}

void on_reply(int, const std::byte* payload, std::size_t) {
  amo_reply rp;
  std::memcpy(&rp, payload, sizeof rp);
  auto* op = reinterpret_cast<rma_op*>(rp.op);
  // The value is written before the operation event, whose notification the user waits on.
  if (rp.result) std::memcpy(reinterpret_cast<void*>(rp.result), &rp.value, rp.size);
  if (op->observed_t0) [[unlikely]] observed_done(op);
  op->on_events(op, ev_operation);
}

void amo_remote(intrank_t rank, const void* owner_addr, amo_code code, amo_type type, const void* v1, const void* v2,
                std::size_t size, std::memory_order order, void* result, rma_op* op) {
  if (g_state.init_count <= 0) [[unlikely]] fail_not_initialized_here("an atomic_domain operation");
  if (rt::sync_hooks_live()) rt::run_sync_point_hooks();  // an atomic synchronizes (gannet::overlap)
  if (g_state.observing.load(std::memory_order_relaxed)) [[unlikely]] observe_start(op, observe_atomic, rank, size);
  amo_request rq{};
  rq.addr = reinterpret_cast<std::uint64_t>(owner_addr);
  std::memcpy(&rq.v1, v1, size);
  std::memcpy(&rq.v2, v2, size);
  rq.code = static_cast<std::uint8_t>(code);
  rq.type = static_cast<std::uint8_t>(type);
  rq.order = static_cast<std::uint8_t>(order);
  rq.size = static_cast<std::uint8_t>(size);
  rq.op = reinterpret_cast<std::uint64_t>(op);
  rq.result = reinterpret_cast<std::uint64_t>(result);
  rt::internal_send(rank, rt::internal_id::amo, &rq, sizeof rq);
}

}  // namespace upcxx::detail

namespace gannet::runtime {
void atomics_attach() {
  internal_register(internal_id::amo, upcxx::detail::on_request);
  internal_register(internal_id::amo_reply, upcxx::detail::on_reply);
}
}  // namespace gannet::runtime
