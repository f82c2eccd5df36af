// Non-contiguous RMA (include/upcxx/vis.hpp), the non-template side: the copy loop for
// addressable memory, and one runtime message per operation and target otherwise.
//
// Wire format (runtime messages, rpc_internal.hpp; all integers host order, 8-byte fields):
//   request  (internal_id::vis):       vis_head, then at internal_body_offset(sizeof vis_head)
//            the body: `runs` wire_runs {owner address, bytes} at the target, then for a put
//            the `bytes` payload bytes packed in run order.
//   reply    (internal_id::vis_reply): reply_head, then for a get the payload bytes.
// The token is the initiator's rma_op (put) or get_state (get): replies come back to the
// process that sent the request, so a pointer is enough. Runs of zero bytes are dropped.
//
// Ordering: requests ride the per-target batches of RPC records (rpc/outgoing.cpp: a record that is
// too large for a batch flushes the batch and travels alone, so records to one target keep
// their order), and the target runs internal handlers as soon as a record arrives. A
// remote_cx::as_rpc sent right after a put's request therefore runs after the put's data
// was stored. Replies reach the operation through rma_op::on_events, which queues the
// notifications on the initiating persona, so a reply handled on another thread (threadmode
// par) is safe; an event bit held by the initiating call (ev_hold) keeps the operation alive
// while the call still uses it (a transport may deliver the reply inside the call).
//
// On-node, both sides strided: a tight loop of equal-size copies over the first dimension
// not dense on both sides (bench/vis: 256-byte blocks 850 bytes apart cost 1.1x a memcpy of
// the same blocks; one rget per block costs 1.4x).
//
// upcxx::copy between two ranks neither of which is addressable here relays (relay_op): a
// get into a temporary buffer, then a put from it issued by the get's reply, so the payload
// crosses the network twice. A message asking the source's owner to put directly would halve
// that; it is the obvious next step for multi-node jobs.
//
// Limits: strided sections merge only their leading dense dimensions (a section whose dense
// dimension is the last moves element by element); off-node, strided sections travel as run
// lists (16 bytes per run), not as a constant-size descriptor; runs are not checked to lie
// inside the target's segment.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "rpc/rpc_internal.hpp"
#include "core/runtime.hpp"
#include "upcxx/vis.hpp"
#include "util/log.hpp"

namespace upcxx::detail {
namespace {

namespace rt = gannet::runtime;

enum : std::uint32_t { kind_put = 1, kind_get = 2 };

struct vis_head {
  std::uint64_t token;
  std::uint64_t runs;   // wire_runs at the start of the body
  std::uint64_t bytes;  // payload bytes: the sum of the runs' lengths
  std::uint32_t kind;
  std::uint32_t unused;
};
struct reply_head {
  std::uint64_t token;
  std::uint32_t kind;
  std::uint32_t unused;
};
struct wire_run {
  std::uint64_t addr;
  std::uint64_t bytes;
};
static_assert(sizeof(wire_run) == 16);

// A get's landing runs, kept from initiation to the reply.
struct get_state {
  rma_op* op;
  std::vector<wire_run> dst;
};

// Appends r's non-empty runs (addresses plus delta) to out; returns their total length.
std::size_t collect(vis_runs& r, std::intptr_t delta, std::vector<wire_run>& out) {
  std::uintptr_t a;
  std::size_t n, total = 0;
  while (r.next(&r, &a, &n)) {
    if (n == 0) continue;
    out.push_back({static_cast<std::uint64_t>(a + delta), n});
    total += n;
  }
  return total;
}

// gannet::overlap: the outstanding memputs these remote runs overlap complete first, and a put
// makes the prefetches it overlaps stale (hooks.hpp, before_rma).
void before_overlap(intrank_t rank, const std::vector<wire_run>& runs, bool put) {
  if (runs.empty()) return;
  std::uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (const auto& w : runs) {
    lo = std::min<std::uintptr_t>(lo, w.addr);
    hi = std::max<std::uintptr_t>(hi, w.addr + w.bytes);
  }
  rt::run_before_rma_hooks(rank, lo, hi, put);
}

[[noreturn]] void fail_lengths(const char* what, std::size_t src, std::size_t dst, const source_loc& loc) {
  fail_at(loc.file_name(), static_cast<int>(loc.line()),
          std::string(what) + ": the source runs hold " + std::to_string(src) + " bytes and the destination runs " +
              std::to_string(dst) + " (spec 15.2: the expanded sequences must have the same length)");
}

void on_request(int source, const std::byte* p, std::size_t bytes) {
  vis_head h;
  if (bytes < sizeof h) gannet::util::fatal("short non-contiguous RMA request from rank %d", source);
  std::memcpy(&h, p, sizeof h);
  const std::size_t body = rt::internal_body_offset(sizeof h);
  const std::size_t runs_bytes = h.runs * sizeof(wire_run);
  const std::size_t need = body + runs_bytes + (h.kind == kind_put ? h.bytes : 0);
  if (need > bytes) gannet::util::fatal("corrupt non-contiguous RMA request from rank %d", source);
  const std::byte* runs = p + body;
  reply_head r{h.token, h.kind, 0};
  if (h.kind == kind_put) {
    // The addresses are ours: the initiator sent them as the owner (this process) sees them.
    const std::byte* data = runs + runs_bytes;
    for (std::uint64_t i = 0; i < h.runs; ++i) {
      wire_run w;
      std::memcpy(&w, runs + i * sizeof w, sizeof w);
      std::memcpy(reinterpret_cast<void*>(w.addr), data, w.bytes);
      data += w.bytes;
    }
    rt::internal_send(source, rt::internal_id::vis_reply, &r, sizeof r);
  } else {
    std::unique_ptr<std::byte[]> packed(new std::byte[h.bytes ? h.bytes : 1]);
    std::byte* out = packed.get();
    for (std::uint64_t i = 0; i < h.runs; ++i) {
      wire_run w;
      std::memcpy(&w, runs + i * sizeof w, sizeof w);
      std::memcpy(out, reinterpret_cast<const void*>(w.addr), w.bytes);
      out += w.bytes;
    }
    rt::internal_send(source, rt::internal_id::vis_reply, &r, sizeof r, packed.get(), h.bytes);
  }
}

void on_reply(int source, const std::byte* p, std::size_t bytes) {
  reply_head r;
  if (bytes < sizeof r) gannet::util::fatal("short non-contiguous RMA reply from rank %d", source);
  std::memcpy(&r, p, sizeof r);
  if (r.kind == kind_put) {
    auto* op = reinterpret_cast<rma_op*>(r.token);
    if (op->observed_t0) [[unlikely]] observed_done(op);
    op->on_events(op, ev_source | ev_operation);
    return;
  }
  std::unique_ptr<get_state> st(reinterpret_cast<get_state*>(r.token));
  const std::byte* data = p + rt::internal_body_offset(sizeof r);
  std::size_t total = 0;
  for (const auto& w : st->dst) total += w.bytes;
  if (rt::internal_body_offset(sizeof r) + total > bytes)
    gannet::util::fatal("corrupt non-contiguous RMA reply from rank %d", source);
  for (const auto& w : st->dst) {
    std::memcpy(reinterpret_cast<void*>(w.addr), data, w.bytes);
    data += w.bytes;
  }
  // The stores above happen-before the notifications: they are queued to the initiating
  // persona (defer_to), which synchronizes with its thread.
  if (st->op->observed_t0) [[unlikely]] observed_done(st->op);
  st->op->on_events(st->op, ev_source | ev_operation);
}

// One contiguous run, for the relay's two legs.
struct one_run final : vis_runs {
  std::uintptr_t addr;
  std::size_t bytes;
  bool given = false;
  one_run(std::uintptr_t a, std::size_t n) : vis_runs{&one_run::step}, addr(a), bytes(n) {}
  static bool step(vis_runs* base, std::uintptr_t* a, std::size_t* n) {
    auto* self = static_cast<one_run*>(base);
    if (self->given) return false;
    self->given = true;
    *a = self->addr;
    *n = self->bytes;
    return true;
  }
};

// A copy between two ranks not addressable from here: the get leg lands in temp; its
// completion (a reply handler, where sending is allowed) starts the put leg for the user's op.
struct relay_op final : rma_op {
  rma_op* user = nullptr;
  intrank_t dst_rank = 0;
  std::uintptr_t dst_addr = 0;
  std::size_t bytes = 0;
  std::unique_ptr<std::byte[]> temp;

  static void events(rma_op* base, unsigned ev) {
    auto* self = static_cast<relay_op*>(base);
    ev &= self->pending;
    self->pending &= ~ev;
    if (ev & ev_operation) {
      self->user->on_events(self->user, ev_source);
      one_run src(reinterpret_cast<std::uintptr_t>(self->temp.get()), self->bytes);
      one_run dst(self->dst_addr, self->bytes);
      vis_put_remote(self->dst_rank, src, dst, self->user, nullptr, "upcxx::copy", source_loc::current());
    }
    if (self->pending == 0) delete self;
  }
};

bool strided_next(vis_runs* base, std::uintptr_t* addr, std::size_t* bytes) {
  auto* r = static_cast<vis_strided_runs*>(base);
  if (r->done) return false;
  *addr = r->base + static_cast<std::uintptr_t>(r->offset);
  *bytes = r->run_bytes;
  // Odometer over the dimensions not merged into the run, keeping the offset incrementally.
  std::size_t k = r->merged;
  for (; k < r->dim; ++k) {
    if (++r->index[k] < r->extents[k]) {
      r->offset += r->strides[k];
      break;
    }
    r->offset -= static_cast<std::ptrdiff_t>(r->extents[k] - 1) * r->strides[k];
    r->index[k] = 0;
  }
  if (k == r->dim) r->done = true;
  return true;
}

}  // namespace

void vis_strided_init(vis_strided_runs& r, std::uintptr_t base, const std::ptrdiff_t* strides,
                      const std::size_t* extents, std::size_t dim, std::size_t elem_bytes, std::size_t* index) {
  r.next = &strided_next;
  r.base = base;
  r.strides = strides;
  r.extents = extents;
  r.index = index;
  r.dim = dim;
  r.offset = 0;
  r.done = false;
  for (std::size_t k = 0; k < dim; ++k) {
    index[k] = 0;
    if (extents[k] == 0) r.done = true;  // an empty section has no runs
  }
  std::size_t run = elem_bytes, merged = 0;
  while (merged < dim && (extents[merged] == 1 || strides[merged] == static_cast<std::ptrdiff_t>(run))) {
    run *= extents[merged];
    ++merged;
  }
  r.merged = merged;
  r.run_bytes = run;
}

// Both sides strided over the same extents: no run matching needed. The run is what both
// sides have dense; the first remaining dimension is a tight loop of equal-size copies.
void copy_strided_local(const vis_strided_runs& src, std::intptr_t src_delta, const vis_strided_runs& dst,
                        std::intptr_t dst_delta) {
  if (src.done || dst.done) return;  // an empty section (both see the same extents)
  const std::size_t dim = src.dim;
  std::size_t m = std::min(src.merged, dst.merged);
  std::size_t run = src.run_bytes;
  for (std::size_t k = src.merged; k > m; --k) run /= src.extents[k - 1];
  std::ptrdiff_t so = 0, dof = 0;
  const auto* s = reinterpret_cast<const std::byte*>(src.base + src_delta);
  auto* d = reinterpret_cast<std::byte*>(dst.base + dst_delta);
  if (m == dim) {
    std::memcpy(d, s, run);
    return;
  }
  const std::size_t inner = src.extents[m];
  const std::ptrdiff_t ss = src.strides[m], ds = dst.strides[m];
  std::size_t* index = src.index;  // the caller's storage; dims above m only
  for (;;) {
    const std::byte* sp = s + so;
    std::byte* dp = d + dof;
    for (std::size_t i = 0; i < inner; ++i, sp += ss, dp += ds) std::memcpy(dp, sp, run);
    std::size_t k = m + 1;
    for (; k < dim; ++k) {
      if (++index[k] < src.extents[k]) {
        so += src.strides[k];
        dof += dst.strides[k];
        break;
      }
      so -= static_cast<std::ptrdiff_t>(src.extents[k] - 1) * src.strides[k];
      dof -= static_cast<std::ptrdiff_t>(src.extents[k] - 1) * dst.strides[k];
      index[k] = 0;
    }
    if (k >= dim) return;
  }
}

std::size_t vis_copy_local(vis_runs& src, std::intptr_t src_delta, vis_runs& dst, std::intptr_t dst_delta,
                           const char* what, const source_loc& loc) {
  if (src.next == &strided_next && dst.next == &strided_next) {
    // Strided sections always match in length (same extents).
    const auto& s = static_cast<vis_strided_runs&>(src);
    std::size_t total = s.done ? 0 : s.run_bytes;
    for (std::size_t k = s.merged; k < s.dim; ++k) total *= s.extents[k];
    copy_strided_local(s, src_delta, static_cast<vis_strided_runs&>(dst), dst_delta);
    return total;
  }
  // Walks both sequences at once: their runs need not line up.
  std::uintptr_t s = 0, d = 0;
  std::size_t sn = 0, dn = 0, src_total = 0, dst_total = 0;
  for (;;) {
    while (sn == 0 && src.next(&src, &s, &sn)) src_total += sn;
    while (dn == 0 && dst.next(&dst, &d, &dn)) dst_total += dn;
    if (sn == 0 || dn == 0) break;
    const std::size_t n = std::min(sn, dn);
    std::memcpy(reinterpret_cast<void*>(d + dst_delta), reinterpret_cast<const void*>(s + src_delta), n);
    s += n;
    d += n;
    sn -= n;
    dn -= n;
  }
  // One side ended: the other must hold nothing more.
  std::uintptr_t a;
  std::size_t n;
  while (src.next(&src, &a, &n)) src_total += n;
  while (dst.next(&dst, &a, &n)) dst_total += n;
  if (src_total != dst_total) fail_lengths(what, src_total, dst_total, loc);
  return src_total;
}

void vis_put_remote(intrank_t rank, vis_runs& src, vis_runs& dst, rma_op* op, void (*after_send)(rma_op*),
                    const char* what, const source_loc& loc) {
  if (g_state.init_count <= 0) [[unlikely]] fail_not_initialized(what, loc);
  std::vector<wire_run> runs;
  const std::size_t total = collect(dst, 0, runs);
  if (rt::sync_hooks_live()) before_overlap(rank, runs, true);
  const std::size_t runs_bytes = runs.size() * sizeof(wire_run);
  std::unique_ptr<std::byte[]> body(new std::byte[runs_bytes + total + 1]);
  if (runs_bytes) std::memcpy(body.get(), runs.data(), runs_bytes);
  // Pack the source runs behind the destination runs; never past the buffer.
  std::byte* out = body.get() + runs_bytes;
  std::size_t packed = 0;
  std::uintptr_t a;
  std::size_t n;
  while (src.next(&src, &a, &n)) {
    if (packed + n <= total) std::memcpy(out + packed, reinterpret_cast<const void*>(a), n);
    packed += n;
  }
  if (packed != total) fail_lengths(what, packed, total, loc);
  if (g_state.observing.load(std::memory_order_relaxed) && !op->observed_t0) [[unlikely]]
    observe_start(op, observe_vis_put, rank, total);
  // The source memory is no longer in use (spec 15.2.2 ¶17).
  op->on_events(op, ev_source);
  rt::runtime_lock lock;  // no other thread's reply handling between the send and the release
  vis_head h{reinterpret_cast<std::uint64_t>(op), runs.size(), total, kind_put, 0};
  rt::internal_send(rank, rt::internal_id::vis, &h, sizeof h, body.get(), runs_bytes + total);
  if (after_send) after_send(op);
  op->on_events(op, ev_hold);
}

void vis_get_remote(intrank_t rank, vis_runs& src, vis_runs& dst, rma_op* op, const char* what,
                    const source_loc& loc) {
  if (g_state.init_count <= 0) [[unlikely]] fail_not_initialized(what, loc);
  auto st = std::make_unique<get_state>();
  st->op = op;
  const std::size_t dst_total = collect(dst, 0, st->dst);
  std::vector<wire_run> runs;
  const std::size_t src_total = collect(src, 0, runs);
  if (src_total != dst_total) fail_lengths(what, src_total, dst_total, loc);
  if (g_state.observing.load(std::memory_order_relaxed)) [[unlikely]] observe_start(op, observe_vis_get, rank, src_total);
  if (rt::sync_hooks_live()) before_overlap(rank, runs, false);
  rt::runtime_lock lock;
  vis_head h{reinterpret_cast<std::uint64_t>(st.get()), runs.size(), src_total, kind_get, 0};
  rt::internal_send(rank, rt::internal_id::vis, &h, sizeof h, runs.data(), runs.size() * sizeof(wire_run));
  st.release();  // the reply frees it
  op->on_events(op, ev_hold);
}

void vis_copy_relay(intrank_t src_rank, std::uintptr_t src_owner_addr, intrank_t dst_rank,
                    std::uintptr_t dst_owner_addr, std::size_t bytes, rma_op* op) {
  auto* relay = new relay_op;
  relay->on_events = &relay_op::events;
  relay->initiator = op->initiator;
  relay->pending = ev_operation | ev_hold;
  relay->user = op;
  relay->dst_rank = dst_rank;
  relay->dst_addr = dst_owner_addr;
  relay->bytes = bytes;
  relay->temp.reset(new std::byte[bytes ? bytes : 1]);
  one_run src(src_owner_addr, bytes);
  one_run dst(reinterpret_cast<std::uintptr_t>(relay->temp.get()), bytes);
  vis_get_remote(src_rank, src, dst, relay, "upcxx::copy", source_loc::current());
}

void vis_fail_null(const char* what, const source_loc& loc) {
  fail_at(loc.file_name(), static_cast<int>(loc.line()),
          std::string(what) + " with a null pointer (spec 15.2: source and destination addresses must not be null, "
                              "even for runs of length zero)");
}

void vis_fail_ranks(const char* what, intrank_t first, intrank_t other, const source_loc& loc) {
  fail_at(loc.file_name(), static_cast<int>(loc.line()),
          std::string(what) + ": the remote runs have affinity to ranks " + std::to_string(first) + " and " +
              std::to_string(other) + " (spec 15.2: all remote addresses must have affinity to the same process)");
}

void vis_fail_device(const char* what, const source_loc& loc) {
  fail_at(loc.file_name(), static_cast<int>(loc.line()),
          std::string(what) + " of device memory: this build of Gannet supports host memory only");
}

}  // namespace upcxx::detail

namespace gannet::runtime {

void vis_attach() {
  internal_register(internal_id::vis, &upcxx::detail::on_request);
  internal_register(internal_id::vis_reply, &upcxx::detail::on_reply);
}

}  // namespace gannet::runtime
