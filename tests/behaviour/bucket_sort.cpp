// Bucket sort of random 40-bit keys: rank r owns the keys in [r*2^40/P, (r+1)*2^40/P).
// Every rank generates its keys, sends each to its bucket's owner, and the owner sorts
// its bucket.
//
//   bucket_sort rpc    keys travel as std::vector arguments of upcxx::rpc
//   bucket_sort rput   the sender asks the owner for room (an rpc returning a global_ptr
//                      into the owner's receive buffer) and rputs the keys there
//
// Checked: the key count (reduce_one to rank 0), sum and xor of the keys (reduce_all)
// against a serial computation, local order and bucket ranges, the boundaries between
// neighbours (rget of the neighbour's last key), and on rank 0 the whole sorted sequence
// (rget of every bucket) against std::sort of every key. Rank 0 prints "bucket_sort: OK".
#include <upcxx/upcxx.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace std;

const int KEY_BITS = 40;
int keys_per_rank = 20000;
int ROUNDS = 20;

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

vector<uint64_t> generate(int round, int rank) {
  vector<uint64_t> keys(keys_per_rank);
  for (int i = 0; i < keys_per_rank; i++) {
    uint64_t h = mix((uint64_t(round) << 50) ^ (uint64_t(rank) << 32) ^ uint64_t(i));
    uint64_t k = h & ((1ULL << KEY_BITS) - 1);
    if (round % 3 == 2 && h % 10 < 7) k >>= 3;  // skewed: most keys in the lowest bucket
    if (i % 97 == 0) k = 12345;             // and some duplicates
    keys[i] = k;
  }
  return keys;
}

int bucket_of(uint64_t key) { return int((key * upcxx::rank_n()) >> KEY_BITS); }

// rput variant: where the keys sent to this rank land
upcxx::global_ptr<uint64_t> recv_buf;
long recv_used = 0;

struct published {
  upcxx::global_ptr<uint64_t> keys;
  long n;
};

int main(int argc, char** argv) {
  upcxx::init();
  string variant = argc > 1 ? argv[1] : "rpc";
  if (argc > 2) keys_per_rank = atoi(argv[2]);
  if (argc > 3) ROUNDS = atoi(argv[3]);
  if (variant != "rpc" && variant != "rput") {
    if (!upcxx::rank_me()) fprintf(stderr, "usage: bucket_sort rpc|rput [keys per rank] [rounds]\n");
    upcxx::finalize();
    return 2;
  }
  int me = upcxx::rank_me(), P = upcxx::rank_n();
  int errors = 0;

  upcxx::dist_object<vector<uint64_t>> bucket({});
  if (variant == "rput") recv_buf = upcxx::new_array<uint64_t>(long(keys_per_rank) * P);

  for (int round = 0; round < ROUNDS; round++) {
    vector<uint64_t> keys = generate(round, me);
    vector<vector<uint64_t>> outgoing(P);
    for (auto k : keys) outgoing[bucket_of(k)].push_back(k);

    if (variant == "rpc") {
      vector<upcxx::future<>> futs;
      for (int d = 0; d < P; d++) {
        int dest = (me + d) % P;
        if (outgoing[dest].empty()) continue;
        auto append = [](upcxx::dist_object<vector<uint64_t>>& b, const vector<uint64_t>& ks) {
          b->insert(b->end(), ks.begin(), ks.end());
        };
        if (round == 0) {
          futs.push_back(upcxx::rpc(dest, append, bucket, outgoing[dest]));
        } else {
          // in chunks of 700 keys
          for (size_t i = 0; i < outgoing[dest].size(); i += 700) {
            vector<uint64_t> chunk(outgoing[dest].begin() + i,
                                   outgoing[dest].begin() + min(outgoing[dest].size(), i + 700));
            futs.push_back(upcxx::rpc(dest, append, bucket, chunk));
          }
        }
      }
      for (auto& f : futs) f.wait();
      upcxx::barrier();
    } else {
      recv_used = 0;
      upcxx::barrier();
      upcxx::future<> all = upcxx::make_future();
      for (int d = 0; d < P; d++) {
        int dest = (me + d) % P;
        long n = outgoing[dest].size();
        if (n == 0) continue;
        auto f = upcxx::rpc(dest,
                            [](long n) {
                              upcxx::global_ptr<uint64_t> p = recv_buf + recv_used;
                              recv_used += n;
                              return p;
                            },
                            n)
                     .then([&outgoing, dest](upcxx::global_ptr<uint64_t> where) {
                       return upcxx::rput(outgoing[dest].data(), where, outgoing[dest].size());
                     });
        all = upcxx::when_all(all, f);
      }
      all.wait();
      upcxx::barrier();
      uint64_t* buf = recv_buf.local();
      bucket->assign(buf, buf + recv_used);
    }

    // sort locally and publish the sorted bucket in the shared segment
    vector<uint64_t>& mine = *bucket;
    sort(mine.begin(), mine.end());
    upcxx::global_ptr<uint64_t> shared = upcxx::new_array<uint64_t>(max<size_t>(mine.size(), 1));
    copy(mine.begin(), mine.end(), shared.local());
    upcxx::dist_object<published> pub(published{shared, long(mine.size())});
    upcxx::barrier();

    // local checks: order, range
    for (size_t i = 0; i < mine.size(); i++) {
      if (bucket_of(mine[i]) != me || (i > 0 && mine[i - 1] > mine[i])) {
        if (errors++ < 3) fprintf(stderr, "rank %d: check failed: key %zu out of order or range\n", me, i);
      }
    }
    // boundary with the previous non-empty bucket
    if (!mine.empty()) {
      for (int r = me - 1; r >= 0; r--) {
        published prev = pub.fetch(r).wait();
        if (prev.n == 0) continue;
        uint64_t last = upcxx::rget(prev.keys + (prev.n - 1)).wait();
        if (last > mine[0]) {
          errors++;
          fprintf(stderr, "rank %d: check failed: rank %d ends with %llu > my first %llu\n", me, r,
                  (unsigned long long)last, (unsigned long long)mine[0]);
        }
        break;
      }
    }

    // count, sum and xor against the serial values
    long total = upcxx::reduce_one(long(mine.size()), upcxx::op_fast_add, 0).wait();
    uint64_t s = 0, x = 0;
    for (auto k : mine) {
      s += k;
      x ^= k;
    }
    uint64_t sum = upcxx::reduce_all(s, upcxx::op_fast_add).wait();
    uint64_t xr = upcxx::reduce_all(x, upcxx::op_fast_bit_xor).wait();
    uint64_t want_sum = 0, want_xor = 0;
    vector<uint64_t> everything;
    for (int r = 0; r < P; r++)
      for (auto k : generate(round, r)) {
        want_sum += k;
        want_xor ^= k;
        if (me == 0) everything.push_back(k);
      }
    if (sum != want_sum || xr != want_xor) {
      errors++;
      fprintf(stderr, "rank %d: check failed: round %d sum/xor %llx/%llx, serial %llx/%llx\n", me, round,
              (unsigned long long)sum, (unsigned long long)xr, (unsigned long long)want_sum,
              (unsigned long long)want_xor);
    }
    if (me == 0) {
      if (total != long(keys_per_rank) * P) {
        errors++;
        fprintf(stderr, "rank 0: check failed: %ld keys after the exchange, expected %ld\n", total,
                long(keys_per_rank) * P);
      }
      // the whole sorted sequence
      sort(everything.begin(), everything.end());
      vector<uint64_t> got;
      for (int r = 0; r < P; r++) {
        published b = pub.fetch(r).wait();
        size_t at = got.size();
        got.resize(at + b.n);
        if (b.n) upcxx::rget(b.keys, got.data() + at, b.n).wait();
      }
      if (got != everything) {
        errors++;
        fprintf(stderr, "rank 0: check failed: round %d: gathered sequence differs from serial sort\n", round);
      }
    }

    // empty the bucket before the barrier: once a rank is out of it, the next round's keys
    // may arrive here
    bucket->clear();
    upcxx::barrier();  // everybody is done reading the published buckets
    upcxx::delete_array(shared);
  }

  int all_errors = upcxx::reduce_all(errors, upcxx::op_fast_add).wait();
  if (me == 0) {
    if (all_errors)
      printf("bucket_sort %s: check failed (%d errors)\n", variant.c_str(), all_errors);
    else
      printf("bucket_sort: OK\n");
  }
  if (variant == "rput") upcxx::delete_array(recv_buf);
  upcxx::finalize();
  return all_errors ? 1 : 0;
}
