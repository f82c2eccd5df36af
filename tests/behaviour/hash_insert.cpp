// Distributed k-mer hash table, in the style of the genome-assembly assignment of a
// parallel-computing course: every rank reads "its" k-mers and inserts them into a table
// spread over all ranks, then looks them up again.
//
//   hash_insert rpc|cas|rpc_ff [kmers per rank] [rounds]
//
//   rpc      unordered_map per rank in a dist_object, inserts and finds by rpc
//   cas      open addressing in the shared segments: a slot is claimed with an
//            atomic compare_exchange on its "used" word, then the k-mer is rput
//   rpc_ff   fire-and-forget inserts followed directly by a barrier, after which
//            each rank reads its own part of the table
//
// Every variant checks against a serial computation over all ranks' k-mers and prints
// "hash_insert: OK" on rank 0.
#include <upcxx/upcxx.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

using namespace std;

const int KLEN = 21;
int kmers_per_rank = 4000;
int rounds = 12;  // phases of insert, barrier, find

// the "reads": deterministic pseudo-random k-mers per (round, rank)
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

string make_kmer(int round, int rank, int i) {
  uint64_t h = mix((uint64_t(round) << 48) ^ (uint64_t(rank) << 32) ^ uint64_t(i));
  // a few k-mers are shared between ranks (the same sequence read twice), like real reads
  if (i % 10 == 0) h = mix((uint64_t(round) << 48) ^ uint64_t(i));
  string s(KLEN, 'A');
  for (int c = 0; c < KLEN; c++) {
    s[c] = "ACGT"[h & 3];
    h >>= 2;
  }
  return s;
}

// left and right extension of a k-mer, a function of the k-mer so duplicates agree
pair<char, char> extensions(const string& kmer) {
  uint64_t h = mix(hash<string>{}(kmer));
  return {"ACGTF"[h % 5], "ACGTF"[(h >> 8) % 5]};
}

uint64_t pack(const string& kmer) {
  uint64_t v = 0;
  for (char c : kmer) v = (v << 2) | (c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : 3);
  return v + 1;  // 0 is "empty"
}

int owner_of(const string& kmer) { return hash<string>{}(kmer) % upcxx::rank_n(); }

int errors = 0;
#define CHECK(cond)                                                                               \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      if (errors++ < 5)                                                                           \
        fprintf(stderr, "rank %d: check failed: %s (line %d)\n", upcxx::rank_me(), #cond, __LINE__); \
    }                                                                                             \
  } while (0)

// ---------------------------------------------------------------------------------------
// (a) rpc into an unordered_map at the owner
using kmer_map = unordered_map<string, pair<char, char>>;

void run_rpc(int round, upcxx::dist_object<kmer_map>& table) {
  int me = upcxx::rank_me();
  vector<upcxx::future<>> futs;
  for (int i = 0; i < kmers_per_rank; i++) {
    string kmer = make_kmer(round, me, i);
    auto f = upcxx::rpc(owner_of(kmer),
                        [](upcxx::dist_object<kmer_map>& lt, const string& k, pair<char, char> ext) {
                          lt->insert({k, ext});
                        },
                        table, kmer, extensions(kmer));
    futs.push_back(f);
  }
  if (round % 2 == 0) {
    // conjoin them all and wait once
    upcxx::future<> all = upcxx::make_future();
    for (auto& f : futs) all = upcxx::when_all(all, f);
    all.wait();
  } else {
    for (auto& f : futs) f.wait();
  }
  upcxx::barrier();

  // lookups: our own k-mers and the next rank's, some waited one by one, the rest at once
  int other = (me + 1) % upcxx::rank_n();
  vector<upcxx::future<pair<char, char>>> finds;
  vector<string> asked;
  for (int i = 0; i < kmers_per_rank; i++) {
    string kmer = make_kmer(round, i % 2 ? other : me, i);
    auto f = upcxx::rpc(owner_of(kmer),
                        [](upcxx::dist_object<kmer_map>& lt, string k) -> pair<char, char> {
                          auto it = lt->find(k);
                          if (it == lt->end()) return {'?', '?'};
                          return it->second;
                        },
                        table, kmer);
    if (i < 100) {
      CHECK(f.wait() == extensions(kmer));
    } else {
      finds.push_back(f);
      asked.push_back(kmer);
    }
  }
  for (size_t j = 0; j < finds.size(); j++) CHECK(finds[j].wait() == extensions(asked[j]));
  // a k-mer nobody has
  string absent(KLEN, 'N');
  char c = upcxx::rpc(owner_of(absent),
                      [](upcxx::dist_object<kmer_map>& lt, string k) { return lt->count(k) ? 'y' : 'n'; }, table,
                      absent)
               .wait();
  CHECK(c == 'n');

  // every rank holds exactly the distinct k-mers it owns (serial count)
  unordered_set<string> mine;
  for (int r = 0; r < upcxx::rank_n(); r++)
    for (int i = 0; i < kmers_per_rank; i++) {
      string k = make_kmer(round, r, i);
      if (owner_of(k) == me) mine.insert(k);
    }
  CHECK(table->size() == mine.size());
  for (auto& k : mine) CHECK(table->count(k) == 1);

  upcxx::barrier();  // nobody is still looking things up
  table->clear();
  upcxx::barrier();
}

// ---------------------------------------------------------------------------------------
// (c) rpc_ff inserts, then barrier, then read the local part
void run_rpc_ff(int round, upcxx::dist_object<kmer_map>& table) {
  int me = upcxx::rank_me();
  for (int i = 0; i < kmers_per_rank; i++) {
    string kmer = make_kmer(round, me, i);
    upcxx::rpc_ff(owner_of(kmer),
                  [](upcxx::dist_object<kmer_map>& lt, const string& k, pair<char, char> ext) {
                    (*lt)[k] = ext;
                  },
                  table, kmer, extensions(kmer));
  }
  upcxx::barrier();

  unordered_set<string> mine;
  for (int r = 0; r < upcxx::rank_n(); r++)
    for (int i = 0; i < kmers_per_rank; i++) {
      string k = make_kmer(round, r, i);
      if (owner_of(k) == me) mine.insert(k);
    }
  if (table->size() != mine.size())
    fprintf(stderr, "rank %d round %d: local table has %zu k-mers after the barrier, expected %zu\n", me, round,
            table->size(), mine.size());
  CHECK(table->size() == mine.size());
  for (auto& k : mine) {
    auto it = table->find(k);
    CHECK(it != table->end() && it->second == extensions(k));
  }
  upcxx::barrier();
  table->clear();
  upcxx::barrier();
}

// ---------------------------------------------------------------------------------------
// (b) open addressing in shared memory, slots claimed by compare_exchange
struct kmer_pair {
  uint64_t kmer;
  char left, right;
};

void run_cas() {
  int me = upcxx::rank_me(), n = upcxx::rank_n();
  size_t total_slots = size_t(kmers_per_rank) * n * 2;  // load factor 0.5
  size_t per_rank = (total_slots + n - 1) / n;

  upcxx::global_ptr<uint64_t> my_used = upcxx::new_array<uint64_t>(per_rank);
  upcxx::global_ptr<kmer_pair> my_data = upcxx::new_array<kmer_pair>(per_rank);
  upcxx::dist_object<upcxx::global_ptr<uint64_t>> d_used(my_used);
  upcxx::dist_object<upcxx::global_ptr<kmer_pair>> d_data(my_data);
  vector<upcxx::global_ptr<uint64_t>> used(n);
  vector<upcxx::global_ptr<kmer_pair>> data(n);
  for (int r = 0; r < n; r++) {
    used[r] = d_used.fetch(r).wait();
    data[r] = d_data.fetch(r).wait();
  }
  upcxx::atomic_domain<uint64_t> ad({upcxx::atomic_op::compare_exchange, upcxx::atomic_op::load});

  for (int round = 0; round < rounds; round++) {
    memset(my_used.local(), 0, per_rank * sizeof(uint64_t));
    upcxx::barrier();

    long probes = 0;
    for (int i = 0; i < kmers_per_rank; i++) {
      string s = make_kmer(round, me, i);
      uint64_t key = pack(s);
      auto ext = extensions(s);
      uint64_t slot = mix(key) % total_slots;
      for (size_t p = 0; p < total_slots; p++, probes++) {
        uint64_t sl = (slot + p) % total_slots;
        int r = sl / per_rank;
        size_t off = sl % per_rank;
        // claim the slot
        uint64_t old = ad.compare_exchange(used[r] + off, 0, 1, memory_order_relaxed).wait();
        if (old == 0) {
          kmer_pair kp{key, ext.first, ext.second};
          upcxx::rput(kp, data[r] + off).wait();
          break;
        }
      }
    }
    upcxx::barrier();

    // find everything we inserted, and half of the next rank's k-mers
    int other = (me + 1) % n;
    for (int i = 0; i < kmers_per_rank; i++) {
      string s = make_kmer(round, i % 2 ? other : me, i);
      uint64_t key = pack(s);
      uint64_t slot = mix(key) % total_slots;
      bool found = false;
      for (size_t p = 0; p < total_slots; p++) {
        uint64_t sl = (slot + p) % total_slots;
        int r = sl / per_rank;
        size_t off = sl % per_rank;
        if (upcxx::rget(used[r] + off).wait() == 0) break;  // empty slot: not in the table
        kmer_pair kp = upcxx::rget(data[r] + off).wait();
        if (kp.kmer == key) {
          found = true;
          CHECK(kp.left == extensions(s).first && kp.right == extensions(s).second);
          break;
        }
      }
      CHECK(found);
    }

    // occupied slots == number of inserts (duplicates take two slots here, like the assignment)
    long occupied = 0;
    uint64_t* u = my_used.local();
    for (size_t j = 0; j < per_rank; j++) occupied += u[j] != 0;
    long total = upcxx::reduce_one(occupied, upcxx::op_fast_add, 0).wait();
    if (me == 0) CHECK(total == long(kmers_per_rank) * n);
    upcxx::barrier();
  }
  ad.destroy();
  upcxx::barrier();
  upcxx::delete_array(my_used);
  upcxx::delete_array(my_data);
}

int main(int argc, char** argv) {
  upcxx::init();
  string variant = argc > 1 ? argv[1] : "rpc";
  if (variant != "rpc") rounds = 40;  // these are cheap
  if (argc > 2) kmers_per_rank = atoi(argv[2]);
  if (argc > 3) rounds = atoi(argv[3]);

  if (variant == "rpc" || variant == "rpc_ff") {
    upcxx::dist_object<kmer_map> table({});
    for (int round = 0; round < rounds; round++) {
      if (variant == "rpc")
        run_rpc(round, table);
      else
        run_rpc_ff(round, table);
    }
  } else if (variant == "cas") {
    run_cas();
  } else {
    if (upcxx::rank_me() == 0) fprintf(stderr, "usage: hash_insert rpc|cas|rpc_ff [kmers per rank] [rounds]\n");
    upcxx::finalize();
    return 2;
  }

  int all_errors = upcxx::reduce_all(errors, upcxx::op_fast_add).wait();
  if (upcxx::rank_me() == 0) {
    if (all_errors)
      printf("hash_insert %s: check failed (%d errors)\n", variant.c_str(), all_errors);
    else
      printf("hash_insert: OK\n");
  }
  upcxx::finalize();
  return all_errors ? 1 : 0;
}
