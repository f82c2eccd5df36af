// Notified access (issue 12) through the launcher, at 1, 2, 4 and 20 ranks: notified puts in a
// ping-pong with persistent requests, many producers counted by one request, notifications
// that arrive before their request starts, wildcards and the status they report, rget_notify,
// zero-byte and large transfers, a request on a team other than world, async(), streams
// between every pair of ranks (ring, lanes, and past the lane limits), and a stress in which every notification is matched exactly once.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <gannet/notify.hpp>
#include <upcxx/upcxx.hpp>

#include "check.hpp"

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int right = (me + 1) % n, left = (me + n - 1) % n;

  // ---- ping-pong around the ring with persistent requests: data before notification ----
  {
    upcxx::dist_object<upcxx::global_ptr<long>> box(upcxx::new_<long>(-1));
    upcxx::global_ptr<long> to_right = box.fetch(right).wait();
    upcxx::barrier();
    gannet::notify_request from_left(left, 1);
    for (long i = 0; i < 200; ++i) {
      from_left.start();
      if (me == 0) gannet::rput_notify(i, to_right, 1).wait();
      gannet::notify_status st = from_left.wait();
      SPMD_CHECK(st.source == left && st.tag == 1);
      SPMD_CHECK(*box->local() == i);  // the data is there when the notification is
      if (me != 0) gannet::rput_notify(i, to_right, 1).wait();
    }
    upcxx::barrier();
    upcxx::delete_(*box);
  }

  // ---- many producers, one counting request; arrays and a large transfer ----
  {
    constexpr std::size_t small = 100, large = 1 << 17;  // 1 MiB of longs
    upcxx::dist_object<upcxx::global_ptr<long>> area(me == 0 ? upcxx::new_array<long>(n * (small + large))
                                                            : upcxx::global_ptr<long>());
    upcxx::global_ptr<long> base = area.fetch(0).wait();
    upcxx::barrier();
    gannet::notify_request all(gannet::any_source, 5, 2 * static_cast<std::uint64_t>(n));
    if (me == 0) all.start();
    upcxx::barrier();  // started before anyone sends (the other order is tested below)
    std::vector<long> mine(small + large);
    std::iota(mine.begin(), mine.end(), me * 1000000L);
    auto f1 = gannet::rput_notify(mine.data(), base + me * (small + large), small, 5);
    auto f2 = gannet::rput_notify(mine.data() + small, base + me * (small + large) + small, large, 5);
    upcxx::when_all(f1, f2).wait();
    if (me == 0) {
      all.wait();
      const long* a = base.local();
      for (int r = 0; r < n; ++r)
        for (std::size_t k = 0; k < small + large; k += 997)
          SPMD_CHECK(a[r * (small + large) + k] == r * 1000000L + static_cast<long>(k));
    }
    upcxx::barrier();
    if (me == 0) upcxx::delete_array(*area);
  }

  // ---- notifications that arrive before the request starts: the unexpected queue ----
  {
    gannet::notify(0, 7);
    gannet::notify(0, 8);
    upcxx::barrier();
    if (me == 0) {
      // Let them all arrive first.
      gannet::notify_request probe(gannet::any_source, 7, static_cast<std::uint64_t>(n));
      probe.start();
      probe.wait();
      gannet::notify_request any(gannet::any_source, gannet::any_tag, static_cast<std::uint64_t>(n));
      any.start();  // takes the n tag-8 notifications, in arrival order
      gannet::notify_status st = any.wait();
      SPMD_CHECK(st.tag == 8);
    }
    upcxx::barrier();
  }

  // ---- wildcards report the match; async() ----
  if (n >= 2) {
    if (me == 0) {
      gannet::notify_request any(gannet::any_source, gannet::any_tag);
      any.start();
      upcxx::barrier();
      auto st = any.async().wait();
      SPMD_CHECK(st.source == 1 && st.tag == 99);
    } else {
      upcxx::barrier();
      if (me == 1) gannet::notify(0, 99);
    }
    upcxx::barrier();
  }

  // ---- rget_notify: the owner learns that its buffer may be reused ----
  {
    upcxx::dist_object<upcxx::global_ptr<long>> buf(upcxx::new_array<long>(64));
    for (int k = 0; k < 64; ++k) buf->local()[k] = me * 100 + k;
    upcxx::global_ptr<long> src = buf.fetch(right).wait();
    gannet::notify_request read_by_left(left, 3);
    read_by_left.start();
    upcxx::barrier();
    std::vector<long> got(64);
    gannet::rget_notify(src, got.data(), 64, 3).wait();
    SPMD_CHECK(got[0] == right * 100 && got[63] == right * 100 + 63);
    read_by_left.wait();  // left has our data: we may overwrite it
    for (int k = 0; k < 64; ++k) buf->local()[k] = -1;
    upcxx::barrier();
    upcxx::delete_array(*buf);
  }

  // ---- a request on a team other than world: sources are team ranks ----
  {
    upcxx::team half = upcxx::world().split(me % 2, me);
    const int hn = half.rank_n();
    // A request from a smaller team with any_source takes members only: a non-member's
    // notification (world rank me ^ 1, in the other half) waits for another request.
    gannet::notify_request r_team(gannet::any_source, 12, static_cast<std::uint64_t>(hn), half);
    r_team.start();
    upcxx::barrier();
    for (int k = 0; k < hn; ++k) gannet::notify(half[k], 12);  // every member of my half
    if (n >= 2 && (me ^ 1) < n) gannet::notify(me ^ 1, 12);      // one from the other half
    gannet::notify_status st = r_team.wait();
    SPMD_CHECK(st.source >= 0 && st.source < hn && st.tag == 12);
    upcxx::barrier();
    if (n >= 2 && (me ^ 1) < n) {
      gannet::notify_request other(gannet::any_source, 12);  // world: takes the non-member's
      other.start();
      gannet::notify_status o = other.wait();
      SPMD_CHECK(o.source == (me ^ 1) && half.from_world(o.source, -1) < 0);
    }
    upcxx::barrier();
    half.destroy();
  }

  // ---- sizes around the inline limit of the slot ring (32 bytes), and order with rput ----
  {
    struct quad {
      long v[4];
    };
    static_assert(sizeof(quad) == 32);
    upcxx::dist_object<upcxx::global_ptr<long>> box(upcxx::new_array<long>(16));
    upcxx::global_ptr<long> dst = box.fetch(right).wait();
    gannet::notify_request got(left, 30, 3);
    got.start();
    upcxx::barrier();
    std::vector<long> v(16);
    std::iota(v.begin(), v.end(), me * 100L);
    auto f1 = gannet::rput_notify(v.data(), dst, 4, 30);          // 32 bytes: inline
    auto f2 = gannet::rput_notify(v.data() + 4, dst + 4, 5, 30);  // 40 bytes: copied, then published
    quad q{{me * 100L + 9, me * 100L + 10, me * 100L + 11, me * 100L + 12}};
    auto f3 = gannet::rput_notify(q, upcxx::reinterpret_pointer_cast<quad>(dst + 9), 30);  // a 32-byte value
    v.assign(16, -7);  // source completion has happened for every kind
    got.wait();
    for (int k = 0; k < 13; ++k) SPMD_CHECK(box->local()[k] == left * 100L + k);
    upcxx::when_all(f1, f2, f3).wait();
    // Once a notified put has completed, a later put to the same place wins: the target
    // does not copy stale inline data over it.
    got.start();
    upcxx::barrier();
    gannet::rput_notify(1L, dst + 15, 30).wait();
    upcxx::rput(2L, dst + 15).wait();
    gannet::notify(right, 30);
    gannet::notify(right, 30);
    got.wait();
    upcxx::barrier();
    SPMD_CHECK(box->local()[15] == 2);
    upcxx::barrier();
    upcxx::delete_array(*box);
  }

  // ---- back-pressure: far more notified puts than a ring holds, to a target that is busy
  //      at first, and every rank flooding its right neighbour at once ----
  {
    constexpr int K = 1000;
    upcxx::dist_object<upcxx::global_ptr<long>> box(upcxx::new_array<long>(K));
    upcxx::global_ptr<long> dst = box.fetch(right).wait();
    gannet::notify_request got(left, 31, K);
    got.start();
    upcxx::barrier();
    if (me == 0) {
      // Busy without progress for a while: the right neighbour's notified puts wait.
      volatile long sink = 0;
      for (long i = 0; i < 20000000; ++i) sink = sink + i;
    }
    upcxx::future<> all = upcxx::make_future();
    for (int i = 0; i < K; ++i) all = upcxx::when_all(all, gannet::rput_notify(long(me) * K + i, dst + i, 31));
    got.wait();
    for (int i = 0; i < K; ++i) SPMD_CHECK(box->local()[i] == long(left) * K + i);
    all.wait();
    upcxx::barrier();
    upcxx::delete_array(*box);
  }

  // ---- streams from every rank to every rank: past lane_after each gets a lane while
  //      lanes last (a target grants 16, a producer has 16; at 20 ranks both run out and the
  //      rest stay on the ring). Per source, notifications keep their order across the
  //      switch from ring to lane, and each one's data is in place when it is matched ----
  {
    constexpr int L = 48;  // beyond lane_after (16) and a lane's 16 slots
    upcxx::dist_object<upcxx::global_ptr<long>> box(upcxx::new_array<long>(static_cast<std::size_t>(n) * L));
    std::fill(box->local(), box->local() + n * L, -1L);
    std::vector<upcxx::global_ptr<long>> dst(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) dst[static_cast<std::size_t>(r)] = box.fetch(r).wait() + me * L;
    upcxx::barrier();
    upcxx::future<> sent = upcxx::make_future();
    for (int i = 0; i < L; ++i)
      for (int k = 1; k <= n; ++k) {
        const int r = (me + k) % n;
        const auto to = dst[static_cast<std::size_t>(r)] + i;
        if (i % 2) {
          sent = upcxx::when_all(sent, gannet::rput_notify(long(me) * 1000 + i, to, 100 + i));
        } else {  // nothing to wait for at the origin: no tracking, no reply
          gannet::rput_notify(long(me) * 1000 + i, to, 100 + i, upcxx::source_cx::as_buffered());
        }
      }
    for (int k = 1; k <= n; ++k) {
      const int s = (me + n - k) % n;
      gannet::notify_request from(s, gannet::any_tag);
      for (int i = 0; i < L; ++i) {
        from.start();
        const gannet::notify_status st = from.wait();
        SPMD_CHECK(st.source == s && st.tag == 100 + i);  // in order
        SPMD_CHECK(box->local()[s * L + i] == long(s) * 1000 + i);
      }
    }
    sent.wait();
    upcxx::barrier();
    upcxx::delete_array(*box);
  }

  // ---- stress: every rank sends K notifications to every rank, tags 20..23 ----
  {
    constexpr int K = 400, tags = 4;
    std::vector<gannet::notify_request*> reqs;
    for (int t = 0; t < tags; ++t)
      reqs.push_back(new gannet::notify_request(gannet::any_source, 20 + t, static_cast<std::uint64_t>(n) * (K / tags)));
    // Start half the requests before the traffic and half during it.
    reqs[0]->start();
    reqs[2]->start();
    upcxx::barrier();
    for (int i = 0; i < K; ++i)
      for (int r = 0; r < n; ++r) gannet::notify((me + r) % n, 20 + i % tags);
    reqs[1]->start();
    reqs[3]->start();
    for (auto* r : reqs) r->wait();
    upcxx::barrier();
    // Nothing left over: a request for one more notification of any of these tags stays
    // incomplete while everyone has finished sending.
    gannet::notify_request extra(gannet::any_source, gannet::any_tag);
    extra.start();
    for (int i = 0; i < 1000; ++i) upcxx::progress();
    SPMD_CHECK(!extra.test());
    upcxx::barrier();
    gannet::notify(me, 0);  // completes extra, so it is not destroyed while started
    extra.wait();
    for (auto* r : reqs) delete r;
  }

  upcxx::barrier();
  if (me == 0) upcxx::say() << "spmd_notify OK";
  upcxx::finalize();
  return 0;
}
