// A work queue driven by rpc_ff.
//
//   work_queue collatz   every rank deals numbers out to random ranks with rpc_ff; the
//                        receiving rank computes the Collatz chain length right in the RPC
//                        and tells rank 0 with another rpc_ff; when rank 0 has heard of
//                        every number it rpc_ff's "done" to everyone, who are polling
//                        `while (!done) upcxx::progress();`
//   work_queue tree      tree nodes that spawn children on random ranks: the RPC puts the
//                        node in the owner's queue, the main loop works the queue off and
//                        then all ranks add up (sent, processed) with reduce_all; equal
//                        totals mean no work is left anywhere
//
// Results (sums, maxima, counts) are checked against a serial computation and rank 0
// prints "work_queue: OK".
#include <upcxx/upcxx.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <utility>
#include <vector>

using namespace std;

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

int errors = 0;

// ------------------------------------------------------------------------ collatz
long numbers_per_round = 50000;
bool done = false;
long completed = 0;  // rank 0: numbers finished this round
long total_numbers = 0;
long my_steps = 0, my_longest = 0, my_count = 0;

long collatz_steps(uint64_t n) {
  long s = 0;
  while (n != 1) {
    n = n % 2 ? 3 * n + 1 : n / 2;
    s++;
  }
  return s;
}

void finished_one() {
  // runs on rank 0
  completed++;
  if (completed == total_numbers)
    for (int r = 0; r < upcxx::rank_n(); r++) upcxx::rpc_ff(r, []() { done = true; });
}

void run_collatz() {
  int me = upcxx::rank_me(), P = upcxx::rank_n();
  for (int round = 0; round < 10; round++) {
    done = false;
    completed = 0;
    total_numbers = numbers_per_round;
    my_steps = my_longest = my_count = 0;
    uint64_t first = 1 + uint64_t(round) * numbers_per_round;
    upcxx::barrier();

    for (uint64_t n = first + me; n < first + numbers_per_round; n += P) {
      int worker = mix(n) % P;
      upcxx::rpc_ff(worker,
                    [](uint64_t n) {
                      long s = collatz_steps(n);
                      my_steps += s;
                      if (s > my_longest) my_longest = s;
                      my_count++;
                      upcxx::rpc_ff(0, finished_one);
                    },
                    n);
    }
    while (!done) upcxx::progress();

    long steps = upcxx::reduce_one(my_steps, upcxx::op_fast_add, 0).wait();
    long longest = upcxx::reduce_one(my_longest, upcxx::op_fast_max, 0).wait();
    long count = upcxx::reduce_all(my_count, upcxx::op_fast_add).wait();
    if (count != numbers_per_round) {
      errors++;
      fprintf(stderr, "rank %d: check failed: round %d: %ld numbers done, expected %ld\n", me, round, count,
              numbers_per_round);
    }
    if (me == 0) {
      long want_steps = 0, want_longest = 0;
      for (uint64_t n = first; n < first + numbers_per_round; n++) {
        long s = collatz_steps(n);
        want_steps += s;
        if (s > want_longest) want_longest = s;
      }
      if (steps != want_steps || longest != want_longest) {
        errors++;
        fprintf(stderr, "rank 0: check failed: round %d: steps %ld longest %ld, serial %ld %ld\n", round, steps,
                longest, want_steps, want_longest);
      }
    }
  }
}

// ------------------------------------------------------------------------ tree
int max_depth = 14;
deque<pair<uint64_t, int>> work;  // (node id, depth)
long sent = 0, processed = 0;
uint64_t weight_sum = 0;

int children_of(uint64_t id, int depth) {
  if (depth >= max_depth) return 0;
  uint64_t h = mix(id) % 100;
  return h < 30 ? 0 : h < 80 ? 1 : h < 97 ? 2 : 4;  // mean 1.21
}
uint64_t child_id(uint64_t id, int c) { return mix(id * 8 + c + 1); }
uint64_t root_id(int round, int rank, int j) { return mix((uint64_t(round) << 40) ^ (uint64_t(rank) << 20) ^ j); }
int place(uint64_t id) { return mix(id ^ 0x5555) % upcxx::rank_n(); }

void serial_tree(uint64_t id, int depth, long& nodes, uint64_t& weights) {
  nodes++;
  weights += id % 1000;
  for (int c = 0; c < children_of(id, depth); c++) serial_tree(child_id(id, c), depth + 1, nodes, weights);
}

void run_tree() {
  int me = upcxx::rank_me(), P = upcxx::rank_n();
  const int roots_per_rank = 200;
  for (int round = 0; round < 20; round++) {
    work.clear();
    sent = processed = 0;
    weight_sum = 0;
    upcxx::barrier();  // nobody sends us nodes of this round before we reset

    for (int j = 0; j < roots_per_rank; j++) {
      work.push_back({root_id(round, me, j), 0});
      sent++;
    }
    int waves = 0;
    while (true) {
      while (!work.empty()) {
        auto [id, depth] = work.front();
        work.pop_front();
        weight_sum += id % 1000;
        for (int c = 0; c < children_of(id, depth); c++) {
          uint64_t kid = child_id(id, c);
          upcxx::rpc_ff(place(kid), [](uint64_t id, int depth) { work.push_back({id, depth}); }, kid, depth + 1);
          sent++;
        }
        processed++;
        if (processed % 64 == 0) upcxx::progress();
      }
      // Children sent to ourselves arrive through progress: the queue can be empty while
      // some are still on their way, and this wait is what runs them (in UPC++ a
      // collective's future becomes ready only inside progress, even on one rank).
      long mine[2] = {sent, processed}, all[2];
      upcxx::reduce_all(mine, all, 2, upcxx::op_fast_add).wait();
      waves++;
      if (all[0] == all[1]) break;
    }

    long nodes = upcxx::reduce_all(processed, upcxx::op_fast_add).wait();
    uint64_t weights = upcxx::reduce_all(weight_sum, upcxx::op_fast_add).wait();
    long want_nodes = 0;
    uint64_t want_weights = 0;
    for (int r = 0; r < P; r++)
      for (int j = 0; j < roots_per_rank; j++) serial_tree(root_id(round, r, j), 0, want_nodes, want_weights);
    if (nodes != want_nodes || weights != want_weights || !work.empty()) {
      errors++;
      fprintf(stderr, "rank %d: check failed: round %d: %ld nodes weight %llu, serial %ld %llu, %zu left\n", me,
              round, nodes, (unsigned long long)weights, want_nodes, (unsigned long long)want_weights, work.size());
    }
    if (me == 0 && round == 0) printf("work_queue tree: %ld nodes, %d waves\n", nodes, waves);
  }
}

int main(int argc, char** argv) {
  upcxx::init();
  string variant = argc > 1 ? argv[1] : "collatz";
  if (variant == "collatz") {
    if (argc > 2) numbers_per_round = atol(argv[2]);
    run_collatz();
  } else if (variant == "tree") {
    if (argc > 2) max_depth = atoi(argv[2]);
    run_tree();
  } else {
    if (upcxx::rank_me() == 0) fprintf(stderr, "usage: work_queue collatz|tree [size]\n");
    upcxx::finalize();
    return 2;
  }
  int all_errors = upcxx::reduce_all(errors, upcxx::op_fast_add).wait();
  if (upcxx::rank_me() == 0) {
    if (all_errors)
      printf("work_queue %s: check failed (%d errors)\n", variant.c_str(), all_errors);
    else
      printf("work_queue: OK\n");
  }
  upcxx::finalize();
  return all_errors ? 1 : 0;
}
