// Threadmode par: operation completion as an LPC to another persona. An operation initiated
// by one thread with operation_cx::as_lpc(p, fn), where p is held by another thread that
// makes progress, runs fn on that other thread (spec 7, 10.5): for RMA (on this machine and
// off it), RPC, atomics, non-contiguous gets and collectives, and in three arrangements:
//   A. the master thread initiates; a worker thread holds a persona it pushed on its stack;
//   B. the master persona is held by a progress thread; the main thread, with its default
//      persona only, initiates and aims the LPCs at the master persona;
//   C. the progress thread, holding the master persona, initiates (collectives too) and aims
//      at the main thread's default persona;
//   D. as A, but the initiating thread makes no progress after initiating one-sided
//      operations (RMA, atomics, non-contiguous): the worker's progress alone completes them;
//   E. a progress thread holds the master persona; main, with its default persona only,
//      initiates RPCs too and makes no progress: their replies are delivered by the master's
//      thread straight to the worker's persona (this hung before: replies went through the
//      initiating persona).
// Each LPC checks the thread it runs on and the value it carries. Built with UPCXX_THREADMODE=1.
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

#if !UPCXX_THREADMODE
#error "build this test with UPCXX_THREADMODE=1"
#endif

namespace {

// Where the LPCs of one arrangement must run, and what they found.
struct sink {
  std::atomic<std::thread::id> owner{};
  std::atomic<int> ran{0};
  std::atomic<int> wrong_thread{0};
  std::atomic<int> wrong_value{0};
  void hit(bool value_ok) {
    if (std::this_thread::get_id() != owner.load()) ++wrong_thread;
    if (!value_ok) ++wrong_value;
    ++ran;
  }
  // Every one of `expected` LPCs ran, on the owner's thread, with the right value.
  void check(int expected) const {
    SPMD_CHECK(ran.load() == expected);
    SPMD_CHECK(wrong_thread.load() == 0);
    SPMD_CHECK(wrong_value.load() == 0);
  }
};

// A thread that pushes a persona of its own (the LPCs' target, owner of `s`) and makes
// progress until it has run as many LPCs as finish() says.
class worker {
 public:
  explicit worker(sink& s) : s_(s) {
    while (s_.owner.load() == std::thread::id{}) std::this_thread::yield();
  }
  upcxx::persona& persona() { return *persona_; }
  void finish(int expected) {
    expected_ = expected;
    thread_.join();
  }

 private:
  sink& s_;
  upcxx::persona* persona_ = nullptr;
  std::atomic<int> expected_{-1};
  std::thread thread_{[this] {  // last: starts once the members above exist
    upcxx::persona p;
    upcxx::persona_scope scope(p);
    persona_ = &p;
    s_.owner = std::this_thread::get_id();  // publishes persona_
    while (expected_.load() < 0 || s_.ran.load() < expected_.load()) upcxx::progress();
  }};
};

// Initiates one operation of every kind with operation completion as an LPC to `target`;
// returns how many LPCs to expect. `collectives`: the caller holds the master persona.
int initiate_all(upcxx::persona& target, sink& s, const std::vector<upcxx::global_ptr<long>>& slots, int round,
                 bool collectives, upcxx::atomic_domain<long>& ad, bool rpcs = true) {
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int right = (me + 1) % n;
  auto lpc = [&](auto fn) { return upcxx::operation_cx::as_lpc(target, std::move(fn)); };
  int expected = 0;
  const long v = 1000L * me + round;
  upcxx::global_ptr<long> mine = slots[me] + 8 * round;       // this rank's row of its own block
  upcxx::global_ptr<long> theirs = slots[right] + 8 * round;  // the same row at the right neighbour

  upcxx::rput(v, theirs, lpc([&s] { s.hit(true); }));
  ++expected;
  upcxx::rput(v, mine + 1, lpc([&s] { s.hit(true); }));  // synchronous: this rank's own heap
  ++expected;
  upcxx::rget(upcxx::global_ptr<const long>(mine + 1), lpc([&s, v](long got) { s.hit(got == v); }));
  ++expected;
  if (rpcs) {
    upcxx::rpc(right, lpc([&s, right](int who) { s.hit(who == right); }), [] { return upcxx::rank_me(); });
    ++expected;
    upcxx::rpc(right, lpc([&s] { s.hit(true); }), [] {});
    ++expected;
    // Source buffering beside the LPC, and a function that owns heap state it frees where
    // it runs (moved along, never copied on the delivering thread).
    auto owned = std::make_unique<long>(v);
    upcxx::rpc(right, upcxx::source_cx::as_buffered() | lpc([&s, v, p = std::move(owned)](long got) {
                 s.hit(got == v + 1 && *p == v);
               }),
               [](long x) { return x + 1; }, v);
    ++expected;
  }
  ad.fetch_add(slots[right] + 8 * round + 2, 1, std::memory_order_relaxed,
               lpc([&s](long old) { s.hit(old >= 0); }));
  ++expected;
  ad.store(slots[right] + 8 * round + 3, v, std::memory_order_relaxed, lpc([&s] { s.hit(true); }));
  ++expected;
  long* landing = new long(-1);  // the LPC owns it once the get has completed
  std::vector<std::pair<upcxx::global_ptr<const long>, std::size_t>> src{{mine + 1, 1}};
  std::vector<std::pair<long*, std::size_t>> d{{landing, 1}};
  upcxx::rget_irregular(src.begin(), src.end(), d.begin(), d.end(), lpc([&s, landing, v] {
                          s.hit(*landing == v);
                          delete landing;
                        }));
  ++expected;
  if (collectives) {
    upcxx::barrier_async(upcxx::world(), lpc([&s] { s.hit(true); }));
    ++expected;
    upcxx::broadcast(long{round}, 0, upcxx::world(), lpc([&s, round](long b) { s.hit(b == round); }));
    ++expected;
    upcxx::reduce_all(1L, upcxx::op_fast_add, upcxx::world(), lpc([&s, n](long sum) { s.hit(sum == n); }));
    ++expected;
  }
  return expected;
}

// The calling thread makes progress until `s` has seen `expected` LPCs.
void serve_until(sink& s, int expected) {
  while (s.ran.load() < expected) upcxx::progress();
}

}  // namespace

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  constexpr int rounds = 20;
  upcxx::global_ptr<long> block = upcxx::new_array<long>(8 * rounds * 5);
  for (int i = 0; i < 8 * rounds * 5; ++i) block.local()[i] = 0;
  std::vector<upcxx::global_ptr<long>> slots = gannet::all_gather(block);
  upcxx::atomic_domain<long> ad({upcxx::atomic_op::fetch_add, upcxx::atomic_op::store});
  upcxx::barrier();

  // A. The master thread initiates; a worker's pushed persona receives.
  {
    sink s;
    worker w(s);
    int total = 0;
    for (int r = 0; r < rounds; ++r) total += initiate_all(w.persona(), s, slots, r, true, ad);
    // The master keeps making progress (its RPC replies and collectives need it) until the
    // worker has run every LPC.
    while (s.ran.load() < total) upcxx::progress();
    w.finish(total);
    s.check(total);
  }
  upcxx::barrier();

  // D. The initiator makes no progress: one-sided operations complete through the worker's.
  {
    sink s;
    worker w(s);
    int total = 0;
    for (int r = 0; r < rounds; ++r) total += initiate_all(w.persona(), s, slots, 3 * rounds + r, false, ad, false);
    w.finish(total);  // no progress here
    s.check(total);
  }
  upcxx::barrier();

  // B and C. A progress thread holds the master persona.
  {
    sink to_master, to_main;
    to_main.owner = std::this_thread::get_id();
    upcxx::persona& main_default = upcxx::default_persona();
    std::atomic<int> master_expected{-1};
    std::atomic<bool> main_done{false};
    std::atomic<int> main_expected{-1};
    upcxx::liberate_master_persona();
    std::thread progress_thread([&] {
      upcxx::persona_scope master(upcxx::master_persona());
      to_master.owner = std::this_thread::get_id();
      // C: the master's thread initiates, collectives included, aiming at main's persona.
      int total = 0;
      for (int r = 0; r < rounds; ++r) total += initiate_all(main_default, to_main, slots, rounds + r, true, ad);
      main_expected = total;
      while (master_expected.load() < 0 || to_master.ran.load() < master_expected.load() || !main_done.load())
        upcxx::progress();
      upcxx::barrier();  // collective: the thread holding the master persona
    });
    while (to_master.owner.load() == std::thread::id{}) std::this_thread::yield();
    // B: main, with its default persona only, initiates at the master persona's thread.
    int total = 0;
    for (int r = 0; r < rounds; ++r) total += initiate_all(upcxx::master_persona(), to_master, slots, 2 * rounds + r, false, ad);
    master_expected = total;
    while (main_expected.load() < 0) upcxx::progress();
    serve_until(to_main, main_expected.load());
    while (to_master.ran.load() < total) upcxx::progress();  // our replies need our progress
    main_done = true;
    progress_thread.join();
    to_master.check(total);
    to_main.check(main_expected.load());
    // E. The master persona stays with a progress thread; main, with its default persona
    // only, initiates every kind but collectives at a worker's persona and then makes no
    // progress: the master's thread runs the RPCs and replies, the worker the LPCs.
    {
      sink s;
      std::atomic<bool> stop{false};
      std::thread master_thread([&] {
        upcxx::persona_scope master(upcxx::master_persona());
        while (!stop.load()) upcxx::progress();
      });
      worker w(s);
      int total = 0;
      for (int r = 0; r < rounds; ++r) total += initiate_all(w.persona(), s, slots, 4 * rounds + r, false, ad, true);
      w.finish(total);  // no progress here
      stop = true;
      master_thread.join();
      s.check(total);
    }
    upcxx::persona_scope back(upcxx::master_persona());
    ad.destroy();
    upcxx::delete_array(block);
    if (me == 0) std::printf("lpc personas: OK (%d ranks)\n", n);
    upcxx::finalize();
  }
}
