// The transport contract: the one interface between the runtime (src/core and the rooms
// above it) and the engines that move bytes (loopback, smp, mpi). GASNet-EX in spirit, small on
// purpose. The runtime never names a concrete transport; it holds a `transport&` chosen at
// run time by make_transport() (transport.cpp), so one binary runs under gannet-run (smp),
// alone (loopback) and, later, under mpirun.
//
// Threading: a transport is driven by the runtime, which serialises calls in seq threadmode
// and takes its own locks in par threadmode; transports need not be internally thread-safe
// unless caps().thread_safe says so.
//
// Progress: nothing completes behind the runtime's back. Completions of asynchronous
// operations and active-message handlers are delivered only from inside poll().
//
// Memory ordering: a put that reports remote completion has made its bytes visible to loads
// of the target rank that follow (in happens-before order) any synchronisation that itself
// follows the completion. Barrier completion is a full release/acquire fence across ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace gannet::transport {

using rank_t = std::int32_t;

enum class status : std::uint8_t {
  ok,           // the operation was injected (and maybe completed, see cx_bits)
  would_block,  // only with op_flags::immediate: nothing happened, try again after poll()
  unsupported,  // this transport lacks the capability (see caps); nothing happened
};

// Which completion events an operation has reached.
//   source: the source buffer may be reused (UPC++ source_cx)
//   remote: the effect is visible at the target (UPC++ remote_cx / operation_cx for puts;
//           for gets it means the destination buffer holds the data)
enum cx_bits : std::uint8_t { cx_none = 0, cx_source = 1, cx_remote = 2, cx_all = 3 };

enum op_flags : std::uint32_t {
  op_none = 0,
  // Never stall on back-pressure: return status::would_block instead (immediate-mode
  // injection, as in the poster "UPC++ and GASNet-EX: PGAS Support for Exascale Apps and
  // Runtimes"). Without it a sender that meets a full queue keeps servicing its own incoming
  // traffic until there is room, so a cycle of full queues cannot deadlock.
  op_immediate = 1u << 0,
  // put only: `src` is valid only during the call (the value of a scalar upcxx::rput): the
  // transport must have read or copied it by the time it returns, and report cx_source.
  op_source_transient = 1u << 1,
  // am_send only: the message need not be handled before its target's next barrier
  // completes (delivered() may ignore it): the runtime's own barrier and collective messages.
  op_untracked = 1u << 2,
};

// Caller-owned completion target for an asynchronous operation. The transport calls
// complete() at most once per bit it did not report synchronously, always from inside poll(),
// and never touches the sink after the last bit has been delivered.
class completion_sink {
 public:
  virtual void complete(cx_bits which) = 0;

 protected:
  ~completion_sink() = default;
};

// Result of an RMA injection: `done` holds the completions that happened synchronously,
// before the call returned (the runtime uses it for eager notification, as in "Optimization
// of Asynchronous Communication Operations through Eager Notifications" §III). The
// remaining bits of cx_all will be delivered to the sink during poll().
struct op_result {
  status st = status::ok;
  cx_bits done = cx_none;
};

// Active messages. A handler runs inside poll() on the target rank with the message's bytes,
// which stay valid only until it returns.
struct am_message {
  rank_t source;
  std::span<const std::byte> header;
  std::span<const std::byte> payload;
};
using am_handler = void (*)(const am_message&);
using am_handler_id = std::uint16_t;
inline constexpr am_handler_id max_am_handlers = 64;

struct capabilities {
  bool active_messages = false;   // am_send works
  bool rma = false;               // put/get to any rank (not only load/store-addressable ones)
  bool thread_safe = false;       // callable from several threads at once
  std::size_t am_max_medium = 0;  // largest header+payload carried in one message
};

// Every transport makes each segment this many bytes larger than the requested heap; the
// runtime keeps them at the start of the segment for its own use (gannet::all_gather, the
// collectives' scratch, the notification ring of notified access).
inline constexpr std::size_t runtime_reserve_bytes = 32768;

// A rank's shared segment as seen by its owner: the raw addresses a global_ptr carries.
struct segment_info {
  std::uintptr_t base = 0;  // owner's virtual address of the first byte
  std::size_t size = 0;
};

class transport {
 public:
  virtual ~transport() = default;

  virtual const char* name() const = 0;
  virtual capabilities caps() const = 0;

  // ---- bootstrap -----------------------------------------------------------------------
  virtual rank_t rank_me() const = 0;
  virtual rank_t rank_n() const = 0;
  // Ranks that share this machine, ascending (always includes rank_me()).
  virtual std::span<const rank_t> local_ranks() const = 0;

  // ---- segments ------------------------------------------------------------------------
  // Every rank's segment (owner's addresses); valid after construction.
  virtual segment_info segment(rank_t r) const = 0;
  // The address in this process at which `owner_addr` of rank `r`'s segment can be loaded
  // and stored, or nullptr when it is not directly addressable from here (another machine).
  // Non-null exactly for local_ranks(). The runtime bypasses the transport for those.
  virtual void* local_address(rank_t r, std::uintptr_t owner_addr) const = 0;

  // ---- RMA -----------------------------------------------------------------------------
  // Copies n bytes from local `src` to `owner_addr` in rank r's segment. `sink` receives the
  // completions not reported in the result; it may be null only if the caller does not care.
  virtual op_result put(rank_t r, std::uintptr_t owner_addr, const void* src, std::size_t n,
                        completion_sink* sink, std::uint32_t flags) = 0;
  // Copies n bytes from `owner_addr` in rank r's segment to local `dst`.
  virtual op_result get(rank_t r, std::uintptr_t owner_addr, void* dst, std::size_t n,
                        completion_sink* sink, std::uint32_t flags) = 0;

  // Private memory that ranks of other machines may read with get_exposed() until
  // unexpose(p) (the collectives offer a private buffer so, instead of a copy in the
  // segment). Returns the token that names it there, or 0 when the transport cannot (the
  // default) or [p, p+n) overlaps memory exposed already: the caller copies instead.
  virtual std::uint64_t expose(const void* p, std::size_t n) {
    (void)p;
    (void)n;
    return 0;
  }
  virtual void unexpose(const void* p) { (void)p; }
  // Copies n bytes at `token` of rank r's exposed memory to local `dst` (as get()).
  virtual op_result get_exposed(rank_t r, std::uint64_t token, void* dst, std::size_t n, completion_sink* sink) {
    (void)r, (void)token, (void)dst, (void)n, (void)sink;
    return {status::unsupported, cx_none};
  }

  // ---- active messages -----------------------------------------------------------------
  // Handlers are registered identically on every rank before the first am_send.
  virtual void am_register(am_handler_id id, am_handler fn) = 0;
  // Sends header+payload (at most caps().am_max_medium bytes together). Buffers may be
  // reused on return (source completion is synchronous for medium messages).
  virtual status am_send(rank_t r, am_handler_id id, std::span<const std::byte> header,
                         std::span<const std::byte> payload, std::uint32_t flags) = 0;

  // ---- collectives the engine can do natively ------------------------------------------
  // Split-phase barrier over all ranks: barrier_arrive() starts one, barrier_test() returns
  // true once every rank has arrived (and must then not be called again for that barrier).
  // Calls that do not move it forward are cheap: the runtime polls them inside progress.
  virtual void barrier_arrive() = 0;
  virtual bool barrier_test() = 0;
  // While barrier_test() is false: how the waiting rank should use its core. `yield` when a
  // rank that has not arrived may be queued behind us on this core (it last ran here);
  // `spin` when every such rank runs elsewhere, so that giving up the core only delays
  // noticing the barrier's end; `any` when the transport cannot tell (the runtime's usual
  // spin-then-yield).
  enum class wait_hint : std::uint8_t { any, spin, yield };
  virtual wait_hint barrier_wait_hint() { return wait_hint::any; }
  // Whether this job's ranks outnumber the cores they run on, answered alike on every rank
  // (the runtime picks collective algorithms by it, and every rank must pick the same one).
  virtual bool ranks_outnumber_cores() const { return false; }
  // The cores the ranks of this machine may run on between them: the union of their CPU
  // affinities (under mpirun each rank may be bound to a core of its own, so one rank's
  // mask says little). The default is this process's affinity, which the ranks of a
  // launcher that binds nothing share.
  virtual int machine_cores() const;

  // ---- delivery around barriers ---------------------------------------------------------
  // Gannet guarantees (docs/compatibility.md) that an active message a rank sent before it
  // arrived at a barrier has been handled at its target before the target's barrier
  // completes. The runtime polls until delivered() holds before it arrives, and calls
  // drain_arrived() once a barrier has completed.
  // delivered(): every message this rank has sent so far has left its outbox and, if it
  // travels through a network, has been handled at its target (the transport may ask the
  // target to say so; it does not wait here). Through a machine's rings leaving the outbox
  // suffices: the barrier orders the ring's publication before the target's completion.
  virtual bool delivered() = 0;
  // Handles every message that had reached this rank when the call began (the barrier that
  // has just completed made them visible), waiting for any a sender is still writing;
  // returns whether it handled any. Cheap when none has arrived.
  virtual bool drain_arrived() = 0;
  // Whether every message this rank receives from others reaches it through one queue,
  // handled in the order the senders took their places in it (after delivered(), for
  // messages through a network, there is nothing of theirs left to handle). Then a barrier
  // that completed through messages of that queue has handled every message its peers sent
  // before arriving (it was placed before their barrier messages), and only messages this
  // rank sent itself may remain for drain_arrived().
  virtual bool one_queue() const { return false; }

  // ---- leaving without finalize ----------------------------------------------------------
  // A rank that returns from main while initialized (docs/compatibility.md): exit_arrive()
  // once, then exit_test() until every rank of the job has arrived. A rank arrives at most
  // once and makes no barrier afterwards; it is not a barrier and never matches one.
  virtual void exit_arrive() = 0;
  virtual bool exit_test() = 0;

  // ---- progress ------------------------------------------------------------------------
  // Services incoming messages and completions; returns true if it did any work.
  virtual bool poll() = 0;
  // poll() for a loop that waits for one event and checks for it after every call (a
  // future's wait): it may stop after the first incoming message, where finding out that
  // there is no second one costs time (MPI_Test of an empty receive runs MPI's progress
  // engine) that would delay the waiter. The default is poll().
  virtual bool poll_waiting() { return poll(); }
  // True while operations this process initiated still need poll() to reach their
  // targets (UPC++ progress_required, spec §10.3).
  virtual bool progress_required() const = 0;

  // ---- diagnostics ---------------------------------------------------------------------
  // Debug aid (optional; the default does nothing): while this process polls, report once
  // per peer a rank that has left messages from anyone unprocessed for `seconds`, the
  // symptom of a rank that does not call progress (spec §10.3, attentiveness).
  virtual void watch_attentiveness(double seconds) { (void)seconds; }

  // ---- failure -------------------------------------------------------------------------
  // True once the job is being torn down (another rank died, the launcher went away): spin
  // loops in the runtime check it and exit instead of waiting forever.
  virtual bool job_aborting() const = 0;

  // ---- library state -------------------------------------------------------------------
  // attach() at every init that initializes the library, detach() at the matching finalize
  // (after its barrier). A process may attach again after detaching (spec §2.1: re-init).
  virtual void attach() = 0;
  virtual void detach() = 0;
};

// Chooses and builds the transport for this process from its environment: the smp
// transport when started by gannet-run, loopback (a one-rank job) otherwise.
// `heap_bytes` is the segment size when this process creates it (loopback).
std::unique_ptr<transport> make_transport(std::size_t heap_bytes);

// How many ranks of this job the launcher started on this machine, from the environment it
// gives each process (mpirun's local size), or 1 when it does not say (for heap sizes given
// as a percentage of the machine's memory, shared by its ranks).
int launcher_local_ranks();

// Loopback transport options, for unit tests: `async_rma` makes put/get complete only in a
// later poll() and makes local_address() return null, so the runtime's off-node paths run
// inside one process.
struct loopback_options {
  std::size_t segment_bytes = 0;
  bool async_rma = false;
};
std::unique_ptr<transport> make_loopback(const loopback_options& opts);

}  // namespace gannet::transport
