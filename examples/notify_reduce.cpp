// A 16-ary tree reduction with counting notifications ("Notified Access: Extending Remote
// Memory Access Programming Models for Producer-Consumer Synchronization" §VI-B), next to
// upcxx::reduce_one. Rank r's parent is (r-1)/16; each rank waits for all its children with
// one notify_request that counts them (any_source, the round's tag, expected = number of
// children), adds their partial sums, which they put into its slots with rput_notify, to its
// own value, and puts the result into its parent's slot. Rank 0 ends with the sum.
//
// Rounds follow each other without waiting at the leaves, so a child may run ahead of its
// parent: each round has its own tag and slots (`depth` of them, reused in turn), and both
// variants meet in a barrier every depth/2 rounds so that nobody runs a whole window ahead.
//   gannet-run -n 4 notify_reduce [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <gannet/notify.hpp>
#include <upcxx/upcxx.hpp>

namespace {

constexpr int arity = 16;
constexpr int depth = 64;  // rounds in flight at most: slots and tags

double value_of(int rank, long round) { return static_cast<double>(rank + 1 + round % 1000); }

}  // namespace

int main(int argc, char** argv) {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const long rounds = argc > 1 ? std::atol(argv[1]) : 20000;
  const int parent = me > 0 ? (me - 1) / arity : -1;
  const int first_child = me * arity + 1;
  const int children = std::max(0, std::min(n, first_child + arity) - first_child);

  // slots[round % depth][child]: the children's partial sums.
  upcxx::dist_object<upcxx::global_ptr<double>> slots(upcxx::new_array<double>(depth * arity));
  upcxx::global_ptr<double> parent_slots = parent >= 0 ? slots.fetch(parent).wait() : nullptr;
  const double* mine = slots->local();
  const int my_index = me > 0 ? (me - 1) % arity : 0;  // my slot at my parent
  gannet::notify_request* from_children[depth];
  for (int t = 0; t < depth; ++t)
    from_children[t] = children > 0 ? new gannet::notify_request(gannet::any_source, t, children) : nullptr;

  bool ok = true;
  auto tree = [&](long count) {
    for (long k = 0; k < count; ++k) {
      const int t = static_cast<int>(k % depth);
      double sum = value_of(me, k);
      if (children > 0) {
        from_children[t]->start();
        from_children[t]->wait();
        for (int c = 0; c < children; ++c) sum += mine[t * arity + c];
      }
      if (parent >= 0) {
        gannet::rput_notify(sum, parent_slots + t * arity + my_index, t);
      } else {
        const double expect = static_cast<double>(n) * (n + 1) / 2 + static_cast<double>(n) * static_cast<double>(k % 1000);
        ok = ok && sum == expect;
      }
      if (k % (depth / 2) == depth / 2 - 1) upcxx::barrier();
    }
  };
  auto library = [&](long count) {
    for (long k = 0; k < count; ++k) {
      const double sum = upcxx::reduce_one(value_of(me, k), upcxx::op_fast_add, 0).wait();
      if (me == 0) {
        const double expect = static_cast<double>(n) * (n + 1) / 2 + static_cast<double>(n) * static_cast<double>(k % 1000);
        ok = ok && sum == expect;
      }
      if (k % (depth / 2) == depth / 2 - 1) upcxx::barrier();
    }
  };

  double best_tree = 1e30, best_lib = 1e30;
  for (int round = 0; round < 3; ++round) {  // alternate: a noisy machine
    for (int which = 0; which < 2; ++which) {
      upcxx::barrier();
      const auto t0 = std::chrono::steady_clock::now();
      if (which == 0) tree(rounds);
      else library(rounds);
      upcxx::barrier();
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / rounds;
      (which == 0 ? best_tree : best_lib) = std::min(which == 0 ? best_tree : best_lib, us);
    }
  }
  ok = upcxx::reduce_all(ok ? 1 : 0, upcxx::op_fast_min).wait() == 1;
  if (me == 0) {
    std::printf("notify_reduce: %d ranks, %ld reductions, best of 3\n", n, rounds);
    std::printf("tree of counting notifications %8.3f us per reduction\n", best_tree);
    std::printf("upcxx::reduce_one              %8.3f us per reduction\n", best_lib);
    std::printf("ratio reduce_one/tree %.2f\n", best_lib / best_tree);
    std::printf("%s\n", ok ? "notify_reduce: results verified" : "notify_reduce: WRONG RESULTS");
  }
  upcxx::barrier();
  for (auto* r : from_children) delete r;
  upcxx::delete_array(*slots);
  upcxx::finalize();
  return ok ? 0 : 1;
}
