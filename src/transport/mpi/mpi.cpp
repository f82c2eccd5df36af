// The MPI transport: ranks started by mpirun, on one machine or many (docs/architecture.md,
// "The MPI transport"; the details are at the end of this comment).
//
// Segments. Each rank's segment is a POSIX shared-memory object it creates; ranks on one
// machine (MPI_Comm_split_type SHARED) map each other's, then unlink the names, so the
// runtime reaches them by load/store exactly as on smp. GANNET_BYPASS=0 skips the mapping:
// every other rank is then off-node, which tests the off-node paths on one machine.
// Off-node RMA is MPI-3 one-sided: one window over every segment, passive target
// (MPI_Win_lock_all for the whole job), MPI_Rput/MPI_Rget, and MPI_Win_flush for remote
// completion of puts, all inside poll().
//
// Ranks of one machine (with the bypass) also share a small control region laid out like an
// smp job's (shm/job.hpp, without segments): active messages between them travel through
// its rings and their barrier is the smp one (shm/barrier.hpp), so a job on one machine makes
// no MPI call after start-up, and a job on many machines waits for MPI only between the
// machines' leaders (hierarchical barrier).
//
// Active messages to other machines travel over two-sided MPI on a private communicator: each rank keeps
// `recv_slots` receives posted (any source) and handles them in the order they were posted,
// which is the order MPI matches them in, so messages from one rank keep their order.
// Flow control is by credits: a rank may have `credits_per_peer` messages to one target not
// yet consumed there; the target returns credits once it has consumed half of them. So the
// memory a flood can make MPI buffer at a target is bounded (credits x message size per
// sender), and a sender out of credits keeps polling (consuming its own traffic, returning
// its own credits) until the target returns some: no cycle of full queues can deadlock.
//
// Delivery before barriers (transport.hpp, delivered()): credits double as acknowledgements.
// A target has handled every message of ours once all our credits for it are back; before a
// barrier, a rank that still lacks some asks such a target for them (one small message each
// way, only to targets with messages not yet acknowledged). MPI keeps the order of messages
// from one rank, so the target answers after handling everything we sent before the request.
//
// A simulated network (docs/architecture.md, "Simulated network"): GANNET_SIM_LATENCY_US=L
// and GANNET_SIM_GBPS=B make every off-node operation look as if it crossed a network of
// latency L microseconds and B gigabytes per second, without blocking anyone: a put
// completes remotely no earlier than L + n/B after it was issued, a get (a round trip)
// 2L + n/B, and a message that came through MPI is handled no earlier than L + n/B after
// it arrived (in arrival order), so credits, replies and barrier messages are delayed too;
// the leaders' MPI_Ibarrier completes no earlier than L x ceil(log2 leaders) after it began.
// A real transfer that takes longer keeps its own time (the delay is a floor, not an
// addition). On-node peers are not delayed. Off, the paths check one flag and compare with 0.
// Measured (2 ranks, every peer off-node, bench/mpi_transport.cpp): rput(8 B).wait() 0.61 us
// without, 5.74 us with L = 5; rget 0.55 us and 10.76 us.
//
// Details.
//  - Selection (transport.cpp): mpirun's environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE,
//    PMIX_SIZE) or a program that initialized MPI itself. gannet-run --mpi execs mpirun
//    (Open MPI: --oversubscribe when ranks outnumber cores, -x for Gannet's variables).
//  - Segments: every rank's segment base is all-gathered at start (8 bytes per rank); names
//    exist only during start-up. The machine's control region is created by node rank 0
//    when more than one rank shares the machine, and unlinked with the heaps.
//    GANNET_MPI_NODE_RANKS=K (a testing aid) treats each K consecutive ranks of a machine
//    as a machine of their own, so one machine runs jobs that mix on- and off-node peers
//    (tests mpi.split.*: 2+2 ranks; mpi.split3.*: 3+1).
//  - Active messages through MPI: recv_slots receives of message_bytes posted, handled
//    oldest first and posted again at the start of the next poll, not on the way from a
//    message's arrival to the code waiting for it. A future's wait() polls through
//    poll_waiting(), which stops after one MPI message: learning that no second one has come
//    means testing an empty receive, which runs Open MPI's progress engine (about 30 ns).
//    upcxx::progress() handles up to recv_slots. Sends copy into a pooled buffer and
//    MPI_Isend. Out of credits, am_send polls (consuming and returning credits itself) until
//    the target returns some; inside a handler it parks the message in the outbox, sent by a
//    later poll; with op_immediate it returns would_block. Per-peer state exists only for
//    peers a rank has talked to.
//  - Puts: source completion when the MPI_Rput request completes (often at once: then
//    eagerly); remote completion after an MPI_Win_flush of the target, issued by poll() once
//    per target with unflushed puts. Sources up to staged_put_bytes are copied first.
//  - Cores: mpirun may bind each rank to a core of its own, so one rank's affinity mask says
//    little; machine_cores() is the union of the masks of the machine's ranks (MPI_Allreduce
//    with MPI_BOR at start-up). The spin limit and the machine's barrier are chosen by it;
//    ranks_outnumber_cores() is the MPI_LOR of every machine's answer, so every rank picks
//    the same collective algorithms.
//  - Across machines over TCP: Open MPI 4.1's osc/rdma needs an RDMA network; over TCP the
//    window needs osc/pt2pt, which Debian's openmpi-mca-params.conf turns off. gannet-run
//    --mpi passes --mca osc ^ucx unless OMPI_MCA_osc is set, and a failing MPI_Win_create
//    says so. tests/mpi/two_hosts.sh runs a job over two network namespaces joined by a veth
//    pair (each with its own hostname and /dev/shm; the remote daemon starts through a
//    plm_rsh_agent that enters the namespace; skipped with a message where namespaces
//    cannot be made).
//  - Lifetime: MPI is finalized at exit when Gannet initialized it; a rank that exits while
//    attached (no upcxx::finalize()) calls MPI_Abort and mpirun ends the job naming it. In
//    an MPI hybrid program (the program called MPI_Init), upcxx::finalize() frees Gannet's
//    communicators and window and leaves MPI to the program.
//  - Attentiveness: off-node operations, RPCs and credit returns advance only inside poll(),
//    i.e. inside progress(), wait() and barriers. A rank that computes for a long time
//    without calling UPC++ delays the RMA others target at it as well as its RPCs
//    (passive-target RMA over TCP needs the target's MPI library to run).
//  - A library built without MPI that finds itself one of N > 1 mpirun processes stops with
//    a message (transport.cpp) instead of running N one-rank jobs.
#include "transport/mpi/mpi.hpp"

#include <fcntl.h>
#include <mpi.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "transport/outbox.hpp"
#include "transport/shm/barrier.hpp"
#include "transport/shm/job.hpp"
#include "transport/shm/ring.hpp"
#include "transport/shm/ring_dispatch.hpp"
#include "transport/transport.hpp"
#include "util/log.hpp"
#include "util/observe.hpp"
#include "util/traffic.hpp"

namespace gannet::transport {

namespace {

constexpr std::size_t message_bytes = 32 * 1024;  // the largest active message, with its wire header
constexpr int recv_slots = 64;
constexpr int credits_per_peer = 64;
constexpr int tag_am = 1;
constexpr std::size_t staged_put_bytes = 4096;  // puts up to this size copy their source first
constexpr am_handler_id credit_handler = 0xffff;  // a message that returns credits, not a handler's
// Asks the receiver to return every credit it holds for us now (before a barrier: see delivered()).
constexpr am_handler_id credit_request_handler = 0xfffe;

// In front of every active message.
struct am_wire {
  std::uint16_t handler;
  std::uint16_t unused;
  std::uint32_t header_bytes;
  std::uint32_t credits;  // credit messages only: how many the receiver returns
  std::uint32_t pad;
};
static_assert(sizeof(am_wire) == 16);

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    util::fatal("MPI: %s failed: %.*s", what, len, text);
  }
}

class mpi_transport;
mpi_transport* g_instance = nullptr;  // for the exit handler

class mpi_transport final : public transport {
 public:
  explicit mpi_transport(std::size_t heap_bytes) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) {
      // An MPI hybrid program: it initialized MPI and will finalize it; we only use it.
      int provided = MPI_THREAD_SINGLE;
      MPI_Query_thread(&provided);
      thread_level_ = provided;
    } else {
      // Serialized is enough: the runtime lock serializes every call into the transport, in
      // threadmode par too (docs/architecture.md).
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &thread_level_), "MPI_Init_thread");
      we_initialized_ = true;
    }
    check(MPI_Comm_dup(MPI_COMM_WORLD, &world_), "MPI_Comm_dup");
    check(MPI_Comm_dup(MPI_COMM_WORLD, &am_comm_), "MPI_Comm_dup");
    check(MPI_Comm_set_errhandler(world_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    MPI_Comm_rank(world_, &me_);
    MPI_Comm_size(world_, &n_);

    const char* bypass = std::getenv("GANNET_BYPASS");
    bypass_ = !(bypass && std::strcmp(bypass, "0") == 0);
    make_segment(heap_bytes + runtime_reserve_bytes);

    // The window over every segment: displacements are offsets from the owner's base.
    if (int rc = MPI_Win_create(reinterpret_cast<void*>(base_), static_cast<MPI_Aint>(seg_bytes_), 1, MPI_INFO_NULL,
                                world_, &win_);
        rc != MPI_SUCCESS) {
      char text[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(rc, text, &len);
      util::fatal("MPI: MPI_Win_create failed: %.*s. Gannet reaches the heaps of other machines through MPI "
                  "one-sided communication; with Open MPI over TCP that needs the pt2pt component, which Debian's "
                  "openmpi-mca-params.conf turns off: start the job with gannet-run --mpi, which allows it, or set "
                  "OMPI_MCA_osc=^ucx",
                  len, text);
    }
    check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
    // Private memory exposed for a while (expose()): a dynamic window, where the MPI library
    // has one. Without it, expose() says no and the collectives copy into the segment.
    if (MPI_Win_create_dynamic(MPI_INFO_NULL, world_, &dwin_) == MPI_SUCCESS)
      check(MPI_Win_lock_all(MPI_MODE_NOCHECK, dwin_), "MPI_Win_lock_all");
    else
      dwin_ = MPI_WIN_NULL;

    for (int i = 0; i < recv_slots; ++i) {
      recvs_.push_back(recv_slot{MPI_REQUEST_NULL, std::make_unique<std::byte[]>(message_bytes)});
      post(recvs_.back());
    }
    g_instance = this;
    if (we_initialized_) std::atexit(at_exit);

    if (const char* v = std::getenv("GANNET_SIM_LATENCY_US"); v && *v) sim_latency_ns_ = parse_sim(v, "GANNET_SIM_LATENCY_US") * 1e3;
    if (const char* v = std::getenv("GANNET_SIM_GBPS"); v && *v) {
      const double gbps = parse_sim(v, "GANNET_SIM_GBPS");
      if (gbps <= 0) util::fatal("GANNET_SIM_GBPS='%s': expected a bandwidth above 0 (gigabytes per second)", v);
      sim_ns_per_byte_ = 1.0 / gbps;
    }
    sim_ = sim_latency_ns_ > 0 || sim_ns_per_byte_ > 0;
  }

  static double parse_sim(const char* v, const char* name) {
    char* end = nullptr;
    const double x = std::strtod(v, &end);
    if (end == v || *end != '\0' || !(x >= 0) || x > 1e9)
      util::fatal("%s='%s': expected a non-negative number", name, v);
    return x;
  }
  static std::uint64_t now_ns() {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
  }
  // When an off-node transfer of n bytes that crosses the simulated network `trips` times
  // may complete.
  std::uint64_t sim_ready(std::size_t n, int trips) const {
    return now_ns() + static_cast<std::uint64_t>(trips * sim_latency_ns_ + static_cast<double>(n) * sim_ns_per_byte_);
  }

  ~mpi_transport() override { shut_down(); }

  const char* name() const override { return "mpi"; }
  capabilities caps() const override {
    capabilities c;
    c.rma = true;
    c.active_messages = true;
    c.am_max_medium = message_bytes - sizeof(am_wire);
    return c;
  }

  rank_t rank_me() const override { return me_; }
  rank_t rank_n() const override { return n_; }
  std::span<const rank_t> local_ranks() const override { return local_; }

  segment_info segment(rank_t r) const override { return {bases_[static_cast<std::size_t>(r)], seg_bytes_}; }

  void* local_address(rank_t r, std::uintptr_t owner_addr) const override {
    int const li = node_index_[static_cast<std::size_t>(r)];
    return li < 0 ? nullptr : reinterpret_cast<void*>(owner_addr + node_delta_[static_cast<std::size_t>(li)]);
  }

  // ---- RMA ----
  op_result put(rank_t r, std::uintptr_t owner_addr, const void* src, std::size_t n, completion_sink* sink,
                std::uint32_t flags) override {
    if (void* here = local_address(r, owner_addr)) {
      std::memcpy(here, src, n);
      return {status::ok, cx_all};
    }
    if (n > static_cast<std::size_t>(INT32_MAX)) util::fatal("a put of %zu bytes: at most 2 GiB per operation", n);
    rma_op op{MPI_REQUEST_NULL, sink, r, true, false, cx_none, nullptr};
    // MPI may read the source until the request completes. Small sources, and sources that
    // die with this call (a scalar rput's value), are copied first: their source completion
    // is then eager, and the caller's bytes are never read late.
    if (n <= staged_put_bytes || (flags & op_source_transient)) {
      op.staged = std::make_unique<std::byte[]>(n > 0 ? n : 1);
      std::memcpy(op.staged.get(), src, n);
      src = op.staged.get();
      op.delivered = cx_source;
    }
    check(MPI_Rput(src, static_cast<int>(n), MPI_BYTE, r, disp(r, owner_addr), static_cast<int>(n), MPI_BYTE, win_,
                   &op.req),
          "MPI_Rput");
    if (!(op.delivered & cx_source)) {
      // Often done at once (the data was copied out): source completion is then eager.
      int done = 0;
      MPI_Test(&op.req, &done, MPI_STATUS_IGNORE);
      if (done) op.delivered = cx_source;
    }
    auto const now = static_cast<cx_bits>(op.delivered);
    if (sim_) op.ready = sim_ready(n, 1);
    rma_.push_back(std::move(op));
    unflushed_.push_back(r);
    return {status::ok, now};
  }

  op_result get(rank_t r, std::uintptr_t owner_addr, void* dst, std::size_t n, completion_sink* sink,
                std::uint32_t) override {
    if (void* here = local_address(r, owner_addr)) {
      std::memcpy(dst, here, n);
      return {status::ok, cx_all};
    }
    if (n > static_cast<std::size_t>(INT32_MAX)) util::fatal("a get of %zu bytes: at most 2 GiB per operation", n);
    return start_get(win_, r, disp(r, owner_addr), dst, n, sink);
  }

  std::uint64_t expose(const void* p, std::size_t n) override {
    if (dwin_ == MPI_WIN_NULL || n == 0 || n > static_cast<std::size_t>(INT32_MAX)) return 0;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (const auto& [b, m] : exposed_)  // MPI does not allow overlapping attachments
      if (a < b + m && b < a + n) return 0;
    if (MPI_Win_attach(dwin_, const_cast<void*>(p), static_cast<MPI_Aint>(n)) != MPI_SUCCESS) return 0;
    exposed_.emplace_back(a, n);
    MPI_Aint token = 0;
    MPI_Get_address(p, &token);
    return static_cast<std::uint64_t>(token);
  }

  void unexpose(const void* p) override {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (auto it = exposed_.begin(); it != exposed_.end(); ++it)
      if (it->first == a) {
        check(MPI_Win_detach(dwin_, const_cast<void*>(p)), "MPI_Win_detach");
        exposed_.erase(it);
        return;
      }
  }

  op_result get_exposed(rank_t r, std::uint64_t token, void* dst, std::size_t n, completion_sink* sink) override {
    return start_get(dwin_, r, static_cast<MPI_Aint>(token), dst, n, sink);  // expose() kept n <= 2 GiB
  }

  // An MPI_Rget into dst, completed by poll() (n <= 2 GiB).
  op_result start_get(MPI_Win w, rank_t r, MPI_Aint at, void* dst, std::size_t n, completion_sink* sink) {
    rma_op op{MPI_REQUEST_NULL, sink, r, false, false, cx_none, nullptr};
    check(MPI_Rget(dst, static_cast<int>(n), MPI_BYTE, r, at, static_cast<int>(n), MPI_BYTE, w, &op.req), "MPI_Rget");
    if (sim_) op.ready = sim_ready(n, 2);
    rma_.push_back(std::move(op));
    return {status::ok, cx_none};
  }

  // ---- active messages ----
  void am_register(am_handler_id id, am_handler fn) override {
    if (id >= max_am_handlers) util::fatal("active-message handler id %u out of range", id);
    handlers_[id] = fn;
  }

  status am_send(rank_t r, am_handler_id id, std::span<const std::byte> header, std::span<const std::byte> payload,
                 std::uint32_t flags) override {
    if (sizeof(am_wire) + header.size() + payload.size() > message_bytes) return status::unsupported;
    util::count_message(header.size() + payload.size());
    // This machine's ranks through their rings (a rank alone on its machine messages itself
    // through MPI, as it does everyone else).
    if (int const li = node_index_[static_cast<std::size_t>(r)]; li >= 0 && node_n_ > 1)
      return ring_send(r, li, id, header, payload, flags);
    peer& p = peer_of(r);
    // Messages to one rank leave in order: behind any that wait in its outbox.
    bool stalled = false;
    while (!outbox_drained(r) || p.credits == 0) {
      if (flags & op_immediate) return status::would_block;
      if (poll_depth_ > 0) {
        // Inside a handler: waiting here could deadlock two ranks sending to each other from
        // handlers. Park it; poll() sends it once credits return.
        outbox_.park(r, id, header, payload);
        return status::ok;
      }
      if (!stalled && observe::on()) observe::count_stall();
      stalled = true;
      poll();
      if (outbox_drained(r) && p.credits > 0) break;
      ::sched_yield();
    }
    send_now(r, p, id, header, payload, (flags & op_untracked) == 0);
    return status::ok;
  }

  // ---- barrier ----
  // One machine: the smp barrier of its ranks. Several: the machine's barrier, then its
  // leader (node rank 0) joins an MPI_Ibarrier of the leaders and releases the others.
  void barrier_arrive() override {
    ++barrier_epoch_;
    barrier_phase_ = 0;
    if (node_n_ > 1) node_barrier_.arrive();
  }
  bool barrier_test() override {
    if (barrier_phase_ == 0) {
      if (node_n_ > 1 && !node_barrier_.test()) return false;
      if (node_n_ == n_) return true;
      if (node_me_ != 0) {
        barrier_phase_ = 2;
      } else {
        check(MPI_Ibarrier(leaders_, &barrier_), "MPI_Ibarrier");
        barrier_phase_ = 1;
        if (sim_) {  // a dissemination barrier's rounds across the simulated network
          int leaders = 1;
          MPI_Comm_size(leaders_, &leaders);
          int rounds = 0;
          while ((1 << rounds) < leaders) ++rounds;
          barrier_ready_ = sim_ready(0, rounds);
        }
      }
    }
    if (barrier_phase_ == 1) {
      int done = 0;
      if (barrier_ != MPI_REQUEST_NULL) check(MPI_Test(&barrier_, &done, MPI_STATUS_IGNORE), "MPI_Test (barrier)");
      else done = 1;  // completed by MPI, waiting for the simulated network
      if (!done || (sim_ && now_ns() < barrier_ready_)) return false;
      // Release: what this machine's ranks wrote before the barrier was acquired by the
      // machine barrier; they acquire the rest of the job's arrival here.
      if (node_n_ > 1) {
        node_header_->node_release.store(barrier_epoch_, std::memory_order_release);
        util::count_signal();
      }
      return true;
    }
    return node_header_->node_release.load(std::memory_order_acquire) >= barrier_epoch_;
  }
  wait_hint barrier_wait_hint() override { return node_n_ == n_ ? node_barrier_.wait_hint() : wait_hint::any; }
  // Whether any machine's ranks outnumber its cores (agreed by every rank at start-up).
  bool ranks_outnumber_cores() const override { return outnumber_; }
  int machine_cores() const override { return machine_cores_; }

  // ---- progress ----
  bool poll() override { return poll_up_to(recv_slots); }
  bool poll_waiting() override { return poll_up_to(1); }

  // Handles at most `budget` messages that came through MPI.
  bool poll_up_to(int budget) {
    if (poll_depth_ > 0) return false;
    ++poll_depth_;
    bool did = false;
    if (node_n_ > 1) {
      // From this machine: a bounded batch, as on smp.
      smp::ring& mine = rings_[static_cast<std::size_t>(node_me_)];
      did = smp::dispatch_ring(mine, handlers_, 64) || did;
    }
    // Through MPI (from other machines, or from ourselves when alone on this one; never when
    // the job shares this machine), oldest posted receive first (MPI's matching order).
    // A slot handled in the last poll is posted again first: reposting after the handler,
    // rather than before returning, keeps MPI_Irecv off the path from a reply's arrival to
    // the caller that waits for it (and from a request's arrival to its reply).
    if (mpi_messages_) {
      for (; unposted_ > 0; --unposted_) post(recvs_[recvs_.size() - static_cast<std::size_t>(unposted_)]);
      for (; budget > 0; --budget) {
        recv_slot& s = recvs_.front();
        int done = 0;
        MPI_Status st;
        check(MPI_Test(&s.req, &done, &st), "MPI_Test (receive)");
        if (!done) break;
        did = true;
        int bytes = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        recv_slot moved = std::move(s);
        recvs_.pop_front();
        if (sim_) {
          // Held until the simulated network would have brought it, behind earlier ones.
          const std::byte* b = moved.buf.get();
          delayed_.push_back(delayed_message{std::max(sim_ready(static_cast<std::size_t>(bytes), 1), last_ready_),
                                             st.MPI_SOURCE, std::vector<std::byte>(b, b + bytes)});
          last_ready_ = delayed_.back().ready;
        } else {
          handle(st.MPI_SOURCE, moved.buf.get(), static_cast<std::size_t>(bytes));
        }
        recvs_.push_back(std::move(moved));
        ++unposted_;
      }
    }
    if (!delayed_.empty()) {
      const std::uint64_t now = now_ns();
      while (!delayed_.empty() && delayed_.front().ready <= now) {
        delayed_message m = std::move(delayed_.front());
        delayed_.pop_front();
        handle(m.source, m.bytes.data(), m.bytes.size());
        did = true;
      }
    }
    if (outbox_.size() > 0) did = outbox_.drain_all([this](rank_t to, const outboxes::message& m) {
      return send_parked(to, m);
    }) || did;
    if (!sends_.empty()) did = reap_sends() || did;
    if (!rma_.empty()) did = progress_rma() || did;
    --poll_depth_;
    return did;
  }

  bool progress_required() const override { return outbox_.size() > 0 || !rma_.empty() || !sends_.empty(); }

  // Parked messages have left, and every target of ours on another machine has handled our
  // last tracked message: enough of our credits are back (asked once for them). Ring
  // messages need no more (transport.hpp).
  bool delivered() override {
    if (outbox_.size() > 0) outbox_.drain_all([this](rank_t to, const outboxes::message& m) { return send_parked(to, m); });
    if (outbox_.size() > 0) return false;
    for (std::size_t i = 0; i < owing_.size();) {
      peer& p = peer_of(owing_[i]);
      // It handles our messages in order: once as many as up to the last tracked one have
      // been handled (their credits are back), that one has.
      if (p.sent - static_cast<std::uint64_t>(credits_per_peer - p.credits) >= p.tracked) {
        p.asked = false;
        p.owing = false;
        owing_[i] = owing_.back();
        owing_.pop_back();
        continue;
      }
      if (!p.asked) {
        p.asked = true;
        am_wire w{credit_request_handler, 0, 0, 0, 0};
        isend(owing_[i], std::as_bytes(std::span(&w, 1)), {}, {});
      }
      ++i;
    }
    return owing_.empty();
  }
  // One machine: its ring. Several machines, one rank on each: every peer's messages were
  // handled before it arrived (delivered()). Both at once: two queues.
  bool one_queue() const override { return node_n_ == n_ || node_n_ <= 1; }
  // A barrier of its own over world_ (used only at start-up otherwise), so it never matches
  // the leaders' barrier.
  void exit_arrive() override { check(MPI_Ibarrier(world_, &exit_), "MPI_Ibarrier (exit)"); }
  bool exit_test() override {
    int done = 0;
    check(MPI_Test(&exit_, &done, MPI_STATUS_IGNORE), "MPI_Test (exit)");
    return done != 0;
  }

  bool drain_arrived() override {
    if (node_n_ <= 1 || poll_depth_ > 0) return false;
    ++poll_depth_;
    const bool did = smp::drain_ring(rings_[static_cast<std::size_t>(node_me_)], handlers_, [] { return false; });
    --poll_depth_;
    return did;
  }

  bool job_aborting() const override { return false; }  // mpirun ends the job

  void attach() override {
    if (shut_)
      util::fatal("upcxx::init after upcxx::finalize in an MPI hybrid program: the MPI resources Gannet used were "
                  "freed at finalize, before the program's MPI_Finalize; initialize UPC++ once per run");
    attached_ = true;
  }
  void detach() override {
    attached_ = false;
    // In a hybrid program the program finalizes MPI, maybe right after this: free what we
    // created while MPI is still there.
    if (!we_initialized_) shut_down();
  }

  void shut_down() {
    if (shut_) return;
    shut_ = true;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (auto& s : recvs_) {
      if (s.req != MPI_REQUEST_NULL) {
        MPI_Cancel(&s.req);
        MPI_Wait(&s.req, MPI_STATUS_IGNORE);
      }
    }
    for (auto& s : sends_) MPI_Wait(&s.req, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
    if (dwin_ != MPI_WIN_NULL) {
      MPI_Win_unlock_all(dwin_);
      MPI_Win_free(&dwin_);
    }
    MPI_Comm_free(&am_comm_);
    if (leaders_ != MPI_COMM_NULL) MPI_Comm_free(&leaders_);
    MPI_Comm_free(&world_);
  }

 private:
  struct recv_slot {
    MPI_Request req;
    std::unique_ptr<std::byte[]> buf;
  };
  struct send_slot {
    MPI_Request req;
    std::vector<std::byte> buf;
  };
  struct peer {
    int credits = credits_per_peer;  // messages we may still send it
    int consumed = 0;                // its messages we consumed and have not returned credits for
    bool owing = false;              // listed in owing_
    bool asked = false;              // we asked for all our credits back (delivered())
    std::uint64_t sent = 0;          // messages we sent it, ever
    std::uint64_t tracked = 0;       // how many we had sent when we last sent a tracked one
  };
  struct rma_op {
    MPI_Request req;
    completion_sink* sink;
    rank_t target;
    bool put;
    bool flushed;            // a put covered by an MPI_Win_flush: remotely complete
    std::uint8_t delivered;  // cx bits already reported
    std::unique_ptr<std::byte[]> staged;  // a put's copy of its source (see put)
    std::uint64_t ready = 0;              // simulated network: not complete before (now_ns)
  };

  static void at_exit() {
    mpi_transport* t = g_instance;
    if (!t) return;
    if (t->attached_) {
      // A rank leaving without upcxx::finalize() would leave the others waiting in MPI.
      util::warn("rank %d is exiting without upcxx::finalize(): ending the job", t->me_);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    t->shut_down();
    MPI_Finalize();
  }

  MPI_Aint disp(rank_t r, std::uintptr_t owner_addr) const {
    return static_cast<MPI_Aint>(owner_addr - bases_[static_cast<std::size_t>(r)]);
  }

  // The peer last asked for is remembered: a round trip asks for the same one four times.
  // (Elements of an unordered_map do not move.)
  peer& peer_of(rank_t r) {
    if (r != last_peer_rank_) {
      last_peer_ = &peers_[r];
      last_peer_rank_ = r;
    }
    return *last_peer_;
  }

  void post(recv_slot& s) {
    check(MPI_Irecv(s.buf.get(), static_cast<int>(message_bytes), MPI_BYTE, MPI_ANY_SOURCE, tag_am, am_comm_, &s.req),
          "MPI_Irecv");
  }

  void handle(rank_t source, const std::byte* msg, std::size_t bytes) {
    am_wire w;
    if (bytes < sizeof w) util::fatal("short active message (%zu bytes) from rank %d", bytes, source);
    std::memcpy(&w, msg, sizeof w);
    peer& p = peer_of(source);
    if (w.handler == credit_handler) {
      p.credits += static_cast<int>(w.credits);
      return;
    }
    if (w.handler == credit_request_handler) {
      // Everything the sender sent before asking has been handled here (MPI's order).
      if (p.consumed > 0) {
        am_wire c{credit_handler, 0, 0, static_cast<std::uint32_t>(p.consumed), 0};
        p.consumed = 0;
        isend(source, std::as_bytes(std::span(&c, 1)), {}, {});
      }
      return;
    }
    am_handler fn = w.handler < max_am_handlers ? handlers_[w.handler] : nullptr;
    if (!fn) util::fatal("active message from rank %d for unregistered handler %u", source, w.handler);
    if (w.header_bytes > bytes - sizeof w) util::fatal("corrupt active message from rank %d", source);
    if (observe::on()) [[unlikely]] observe::received(bytes - sizeof w);
    const std::byte* body = msg + sizeof w;
    fn(am_message{source, std::span(body, w.header_bytes),
                  std::span(body + w.header_bytes, bytes - sizeof w - w.header_bytes)});
    // Return credits once half of the sender's have been used here.
    if (++p.consumed >= credits_per_peer / 2) {
      am_wire c{credit_handler, 0, 0, static_cast<std::uint32_t>(p.consumed), 0};
      p.consumed = 0;
      isend(source, std::as_bytes(std::span(&c, 1)), {}, {});
    }
  }

  void send_now(rank_t r, peer& p, am_handler_id id, std::span<const std::byte> header,
                std::span<const std::byte> payload, bool tracked = true) {
    ++p.sent;
    if (tracked) {  // delivered() waits until the target has handled it
      p.tracked = p.sent;
      p.asked = false;  // a request sent before this message does not cover it
      if (!p.owing) {
        p.owing = true;
        owing_.push_back(r);
      }
    }
    --p.credits;
    am_wire w{id, 0, static_cast<std::uint32_t>(header.size()), 0, 0};
    isend(r, std::as_bytes(std::span(&w, 1)), header, payload);
  }

  // Copies the pieces into a send buffer (the caller's may be reused at once) and starts it.
  void isend(rank_t r, std::span<const std::byte> a, std::span<const std::byte> b, std::span<const std::byte> c) {
    std::vector<std::byte> buf;
    if (!spare_.empty()) {
      buf = std::move(spare_.back());
      spare_.pop_back();
    }
    buf.resize(a.size() + b.size() + c.size());
    std::memcpy(buf.data(), a.data(), a.size());
    if (!b.empty()) std::memcpy(buf.data() + a.size(), b.data(), b.size());
    if (!c.empty()) std::memcpy(buf.data() + a.size() + b.size(), c.data(), c.size());
    sends_.push_back(send_slot{MPI_REQUEST_NULL, std::move(buf)});
    auto& s = sends_.back();
    check(MPI_Isend(s.buf.data(), static_cast<int>(s.buf.size()), MPI_BYTE, r, tag_am, am_comm_, &s.req),
          "MPI_Isend");
  }

  bool reap_sends() {
    bool did = false;
    // Sends complete about in order; stop at the first that has not.
    while (!sends_.empty()) {
      int done = 0;
      check(MPI_Test(&sends_.front().req, &done, MPI_STATUS_IGNORE), "MPI_Test (send)");
      if (!done) break;
      if (spare_.size() < 64) spare_.push_back(std::move(sends_.front().buf));
      sends_.pop_front();
      did = true;
    }
    return did;
  }

  // Sends one parked message if its destination has room now (its ring, or credits).
  bool send_parked(rank_t r, const outboxes::message& m) {
    if (int const li = node_n_ > 1 ? node_index_[static_cast<std::size_t>(r)] : -1; li >= 0)
      return ring_try_send(li, m.id, m.header(), m.payload());
    peer& p = peer_of(r);
    if (p.credits == 0) return false;
    send_now(r, p, m.id, m.header(), m.payload());
    return true;
  }
  // Sends what waits for r while there is room; true if nothing waits for r any more.
  bool outbox_drained(rank_t r) {
    return outbox_.drain(r, [this](rank_t to, const outboxes::message& m) { return send_parked(to, m); });
  }

  bool ring_try_send(int li, am_handler_id id, std::span<const std::byte> header, std::span<const std::byte> payload) {
    return rings_[static_cast<std::size_t>(li)].try_send(me_, id, header.data(), static_cast<std::uint32_t>(header.size()),
                                                        payload.data(), static_cast<std::uint32_t>(payload.size()));
  }

  // A message to a rank of this machine, through its ring (as on smp). Messages to one rank
  // leave in order: behind any parked in its outbox.
  status ring_send(rank_t r, int li, am_handler_id id, std::span<const std::byte> header,
                   std::span<const std::byte> payload, std::uint32_t flags) {
    unsigned spins = 0;
    for (;;) {
      if (outbox_drained(r) && ring_try_send(li, id, header, payload)) return status::ok;
      if (flags & op_immediate) return status::would_block;
      if (poll_depth_ > 0) {
        // Inside a handler the ring we are reading cannot be drained, so waiting here could
        // deadlock two ranks sending to each other from handlers: park the message.
        outbox_.park(r, id, header, payload);
        return status::ok;
      }
      // Back-pressure: keep draining our own ring while we wait for room in theirs.
      if (!poll() && ++spins > 64) ::sched_yield();
    }
  }

  bool progress_rma() {
    if (rma_.empty()) return false;
    bool did = false;
    // Remote completion of puts: one flush per target with puts not yet flushed.
    if (!unflushed_.empty()) {
      std::sort(unflushed_.begin(), unflushed_.end());
      unflushed_.erase(std::unique(unflushed_.begin(), unflushed_.end()), unflushed_.end());
      for (rank_t r : unflushed_) check(MPI_Win_flush(r, win_), "MPI_Win_flush");
      // Only the puts issued before the flushes (callbacks below may issue more).
      for (auto& op : rma_)
        if (op.put && std::binary_search(unflushed_.begin(), unflushed_.end(), op.target)) op.flushed = true;
      unflushed_.clear();
    }
    const std::uint64_t now = sim_ ? now_ns() : 0;
    for (std::size_t i = 0; i < rma_.size();) {
      int done = rma_[i].req == MPI_REQUEST_NULL;
      if (!done) check(MPI_Test(&rma_[i].req, &done, MPI_STATUS_IGNORE), "MPI_Test (RMA)");
      if (done && !(rma_[i].delivered & cx_source) && rma_[i].put) {
        rma_[i].delivered |= cx_source;
        // May start new operations (appended to rma_, which may move): index, not reference.
        if (rma_[i].sink) rma_[i].sink->complete(cx_source);
      }
      rma_op& op = rma_[i];
      bool remote = done && (!op.put || op.flushed) && op.ready <= now;  // (0 without the simulation)
      if (!remote) {
        ++i;
        continue;
      }
      auto rest = static_cast<cx_bits>(cx_all & ~op.delivered);
      completion_sink* sink = op.sink;
      rma_[i] = std::move(rma_.back());
      rma_.pop_back();
      did = true;
      if (sink && rest) sink->complete(rest);  // may start new operations (appended to rma_)
    }
    return did;
  }

  void make_segment(std::size_t bytes) {
    seg_bytes_ = bytes;
    MPI_Comm node;
    check(MPI_Comm_split_type(world_, MPI_COMM_TYPE_SHARED, me_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    {
      // The machine's cores: the union of its ranks' affinities (mpirun may bind each rank to
      // a core of its own).
      cpu_set_t set, all;
      CPU_ZERO(&set);
      if (::sched_getaffinity(0, sizeof set, &set) != 0) CPU_ZERO(&set);
      check(MPI_Allreduce(&set, &all, static_cast<int>(sizeof set), MPI_BYTE, MPI_BOR, node), "MPI_Allreduce");
      machine_cores_ = CPU_COUNT(&all) > 0 ? CPU_COUNT(&all) : smp::available_cores();
    }
    if (const char* k = std::getenv("GANNET_MPI_NODE_RANKS"); k && *k) {
      // Testing aid (docs/testing.md): treat each K consecutive ranks of a machine as a
      // machine of their own, so that a job on one machine mixes on- and off-node peers.
      int const per = std::atoi(k);
      if (per <= 0) util::fatal("GANNET_MPI_NODE_RANKS='%s': expected a positive number", k);
      int node_rank = 0;
      MPI_Comm_rank(node, &node_rank);
      MPI_Comm part;
      check(MPI_Comm_split(node, node_rank / per, node_rank, &part), "MPI_Comm_split");
      MPI_Comm_free(&node);
      node = part;
    }
    std::vector<int> members(1, me_);  // this machine's ranks, in node order
    bool central = false;
    if (!bypass_) {
      // Every other rank is off-node: a private mapping, reached only through MPI.
      void* p = ::mmap(nullptr, seg_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) util::fatal("cannot map a shared heap of %zu bytes: %s", seg_bytes_, std::strerror(errno));
      base_ = reinterpret_cast<std::uintptr_t>(p);
    } else {
      MPI_Comm_rank(node, &node_me_);
      MPI_Comm_size(node, &node_n_);
      // One name per rank for the few moments until every rank on this machine has mapped
      // it, and one for the machine's control region: rank 0 of the machine picks a random
      // key for the job. ("gannet.mpi-", not "gannet-": the smp launcher's tests count
      // "gannet-" names as leaks of their own.)
      std::uint64_t key = 0;
      if (node_me_ == 0) {
        key = std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32);
        // The heaps and the control region are sparse files in /dev/shm: too little room
        // shows only as a SIGBUS when a page is first touched. Say so before anything exists.
        std::uint64_t const need = static_cast<std::uint64_t>(node_n_) * seg_bytes_ +
                                   (node_n_ > 1 ? smp::job_layout::compute(node_n_, 0).control_bytes : 0);
        struct statvfs vfs;
        if (::statvfs("/dev/shm", &vfs) == 0) {
          std::uint64_t const avail = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
          if (avail < need)
            util::fatal("/dev/shm has %llu MiB free but the %d ranks on this machine need %llu MiB (%zu MiB of shared "
                        "heap each, and their message rings): use a smaller --shared-heap (UPCXX_SHARED_HEAP_SIZE), "
                        "fewer ranks per machine, or a larger /dev/shm",
                        static_cast<unsigned long long>(avail >> 20), node_n_,
                        static_cast<unsigned long long>((need + (1 << 20) - 1) >> 20), seg_bytes_ >> 20);
        }
      }
      MPI_Bcast(&key, 1, MPI_UINT64_T, 0, node);
      auto name_of = [key](const char* what, int world_rank) {
        char name[64];
        std::snprintf(name, sizeof name, "/gannet.mpi-%016llx-%s%d", static_cast<unsigned long long>(key), what,
                      world_rank);
        return std::string(name);
      };
      const std::string mine = name_of("", me_);
      base_ = reinterpret_cast<std::uintptr_t>(create_shared(mine, seg_bytes_, "shared heap"));
      const std::string control = name_of("node", 0);
      node_layout_ = smp::job_layout::compute(node_n_, 0);
      node_region_bytes_ = node_layout_.control_bytes;
      if (node_n_ > 1 && node_me_ == 0) {
        node_region_ = create_shared(control, node_region_bytes_, "control region");
        // The machine's barrier, chosen once for all its ranks (they read it after the
        // barrier below).
        smp::header_of(node_region_)->barrier_central.store(smp::choose_central_barrier(node_n_, machine_cores_) ? 1 : 0,
                                                            std::memory_order_relaxed);
      }
      members.resize(static_cast<std::size_t>(node_n_));
      MPI_Allgather(&me_, 1, MPI_INT, members.data(), 1, MPI_INT, node);
      MPI_Barrier(node);  // every name exists
      for (int world_rank : members) {
        if (world_rank == me_) continue;
        void* q = open_shared(name_of("", world_rank), seg_bytes_);
        peer_maps_.push_back(q);
        mapped_[world_rank] = reinterpret_cast<std::uintptr_t>(q);
      }
      if (node_n_ > 1) {
        if (node_me_ != 0) node_region_ = open_shared(control, node_region_bytes_);
        node_header_ = smp::header_of(node_region_);
        rings_.resize(static_cast<std::size_t>(node_n_));
        for (int i = 0; i < node_n_; ++i) rings_[i] = smp::ring(smp::ring_of(node_region_, node_layout_, i));
        rings_[node_me_].initialize();  // before the barrier: nobody sends before it
        central = node_header_->barrier_central.load(std::memory_order_relaxed) != 0;
        node_barrier_ = smp::region_barrier(node_region_, node_layout_, node_me_, node_n_, central);
      }
      MPI_Barrier(node);  // everyone has mapped everyone: the names can go
      ::shm_unlink(mine.c_str());
      if (node_n_ > 1 && node_me_ == 0) ::shm_unlink(control.c_str());
    }
    bases_.resize(static_cast<std::size_t>(n_));
    std::uint64_t b = base_;
    MPI_Allgather(&b, 1, MPI_UINT64_T, bases_.data(), 1, MPI_UINT64_T, world_);
    node_index_.assign(static_cast<std::size_t>(n_), -1);
    node_delta_.assign(static_cast<std::size_t>(node_n_), 0);
    for (int i = 0; i < node_n_; ++i) {
      int const r = members[static_cast<std::size_t>(i)];
      node_index_[static_cast<std::size_t>(r)] = i;
      if (r != me_) node_delta_[static_cast<std::size_t>(i)] = mapped_[r] - bases_[static_cast<std::size_t>(r)];
    }
    local_ = members;
    std::sort(local_.begin(), local_.end());
    // Messages come through MPI from other machines, and from ourselves when alone here.
    mpi_messages_ = node_n_ < n_ || node_n_ == 1;
    // Collectives pick their algorithm by this: every rank must see the same answer.
    int mine_outnumber = central ? 1 : 0;
    check(MPI_Allreduce(&mine_outnumber, &outnumber_, 1, MPI_INT, MPI_LOR, world_), "MPI_Allreduce");
    // The machines' leaders, for the job-wide barrier (every rank when each is alone).
    if (node_n_ < n_)
      check(MPI_Comm_split(world_, node_me_ == 0 ? 0 : MPI_UNDEFINED, me_, &leaders_), "MPI_Comm_split");
    MPI_Comm_free(&node);
  }

  // Creates, sizes and maps a POSIX shared-memory object (zero-filled).
  static void* create_shared(const std::string& name, std::size_t bytes, const char* what) {
    int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) util::fatal("cannot create the %s %s: %s", what, name.c_str(), std::strerror(errno));
    if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      int const e = errno;
      ::shm_unlink(name.c_str());
      util::fatal("cannot size the %s to %zu bytes (/dev/shm too small?): %s", what, bytes, std::strerror(e));
    }
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) {
      int const e = errno;
      ::shm_unlink(name.c_str());
      util::fatal("cannot map the %s: %s", what, std::strerror(e));
    }
    return p;
  }

  static void* open_shared(const std::string& name, std::size_t bytes) {
    int fd = ::shm_open(name.c_str(), O_RDWR, 0600);
    if (fd < 0) util::fatal("cannot open %s (a peer's shared memory): %s", name.c_str(), std::strerror(errno));
    void* q = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    ::close(fd);
    if (q == MAP_FAILED) util::fatal("cannot map %s (a peer's shared memory): %s", name.c_str(), std::strerror(errno));
    return q;
  }

  int me_ = 0, n_ = 1;
  int thread_level_ = MPI_THREAD_SINGLE;
  bool we_initialized_ = false, bypass_ = true, attached_ = false, shut_ = false;
  MPI_Comm world_ = MPI_COMM_NULL, am_comm_ = MPI_COMM_NULL;
  MPI_Win win_ = MPI_WIN_NULL;
  MPI_Win dwin_ = MPI_WIN_NULL;  // expose(): private memory, attached for a while
  std::vector<std::pair<std::uintptr_t, std::size_t>> exposed_;  // (address, bytes) attached
  MPI_Request barrier_ = MPI_REQUEST_NULL;
  MPI_Request exit_ = MPI_REQUEST_NULL;
  std::uintptr_t base_ = 0;
  std::size_t seg_bytes_ = 0;
  std::vector<std::uint64_t> bases_;  // every rank's segment base (owner's address)
  std::vector<rank_t> local_;
  std::unordered_map<rank_t, std::uintptr_t> mapped_;  // where this process maps a local peer's segment
  // This machine (with the bypass): our index among its ranks, their count, each world
  // rank's index here (-1: another machine), and mapped - owner base per index (unsigned
  // wrap-around), and the control region with their rings and barrier.
  int node_me_ = 0, node_n_ = 1;
  std::vector<int> node_index_;
  std::vector<std::uintptr_t> node_delta_;
  void* node_region_ = nullptr;
  std::size_t node_region_bytes_ = 0;
  smp::job_layout node_layout_{};
  smp::job_header* node_header_ = nullptr;
  std::vector<smp::ring> rings_;  // by node index: producer handles, and ours to consume
  smp::region_barrier node_barrier_;
  bool mpi_messages_ = false;  // some ranks (maybe just us) reach us through MPI messages
  int outnumber_ = 0;           // some machine's ranks outnumber its cores
  int machine_cores_ = 1;       // the union of this machine's ranks' affinities
  MPI_Comm leaders_ = MPI_COMM_NULL;
  std::uint64_t barrier_epoch_ = 0;
  int barrier_phase_ = 0;  // 0: this machine's barrier; 1: the leaders' MPI barrier; 2: awaiting release
  std::vector<void*> peer_maps_;
  am_handler handlers_[max_am_handlers] = {};
  std::deque<recv_slot> recvs_;  // posted receives in posting order, then the unposted_ handled ones
  int unposted_ = 0;
  std::deque<send_slot> sends_;
  std::vector<std::vector<std::byte>> spare_;
  std::unordered_map<rank_t, peer> peers_;  // created at first contact
  std::vector<rank_t> owing_;               // peers that may hold credits of ours (see delivered())
  rank_t last_peer_rank_ = -1;
  peer* last_peer_ = nullptr;
  outboxes outbox_;                         // messages parked by handlers, per destination
  std::vector<rma_op> rma_;
  std::vector<rank_t> unflushed_;  // targets of puts not yet flushed
  // The simulated network (GANNET_SIM_LATENCY_US, GANNET_SIM_GBPS): off by default.
  bool sim_ = false;
  double sim_latency_ns_ = 0, sim_ns_per_byte_ = 0;
  struct delayed_message {
    std::uint64_t ready;
    rank_t source;
    std::vector<std::byte> bytes;
  };
  std::deque<delayed_message> delayed_;  // arrived through MPI, handled once ready, in order
  std::uint64_t last_ready_ = 0;
  std::uint64_t barrier_ready_ = 0;  // the leaders' barrier may not complete before
  int poll_depth_ = 0;
};

}  // namespace

bool mpi_initialized_by_program() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  return initialized != 0;
}

std::unique_ptr<transport> make_mpi(std::size_t heap_bytes) { return std::make_unique<mpi_transport>(heap_bytes); }

}  // namespace gannet::transport
