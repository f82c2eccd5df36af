// Level-synchronous breadth-first search on a generated graph distributed by blocks of
// vertices. The frontier is expanded by sending (vertex, level) to the vertex's owner with
// rpc_ff; the owner marks the vertex and puts it on its next frontier. The level ends when
// every message has arrived, then the ranks agree on the size of the new frontier with
// reduce_all. Rank 0 picks the roots and broadcasts them.
//
//   bfs [--sync=count|barrier] [--no-finalize]
//
//   --sync=count    (default) per-level message counts: reduce_all of what each rank sent
//                   to each owner, then progress() until that many have arrived
//   --sync=barrier  just upcxx::barrier() after sending (the RPCs have run at their
//                   targets once the barrier is over)
//   --no-finalize   return from main without upcxx::finalize()
//
// Distances are checked against a serial BFS; rank 0 prints "bfs: OK".
#include <upcxx/upcxx.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

using namespace std;

int N;      // vertices
int block;  // vertices per rank
int lo, hi; // mine: [lo, hi)
vector<vector<int>> adj;       // adjacency of my vertices (index v - lo)
vector<int> dist;              // distance of my vertices
vector<int> next_frontier;     // filled by the rpc_ff handler
vector<long> received;         // visits received, per level

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

int owner(int v) { return v / block; }

// the whole edge list, the same on every rank
vector<pair<int, int>> make_edges(int kind) {
  vector<pair<int, int>> e;
  if (kind == 0) {
    // random graph: two random edges per vertex (some vertices end up unreachable)
    N = 5000;
    for (int v = 0; v < N; v++)
      for (int j = 0; j < 2; j++) {
        int u = mix(uint64_t(v) * 2 + j) % N;
        if (u != v) e.push_back({v, u});
      }
  } else {
    // 64x64 grid with a few edges missing: a long BFS (over a hundred levels)
    int W = 64;
    N = W * W;
    for (int y = 0; y < W; y++)
      for (int x = 0; x < W; x++) {
        int v = y * W + x;
        if (x + 1 < W && mix(v * 7 + 1) % 10 != 0) e.push_back({v, v + 1});
        if (y + 1 < W && mix(v * 7 + 2) % 10 != 0) e.push_back({v, v + W});
      }
  }
  return e;
}

vector<int> serial_bfs(const vector<pair<int, int>>& edges, int root) {
  vector<vector<int>> g(N);
  for (auto& e : edges) {
    g[e.first].push_back(e.second);
    g[e.second].push_back(e.first);
  }
  vector<int> d(N, -1);
  deque<int> q;
  d[root] = 0;
  q.push_back(root);
  while (!q.empty()) {
    int v = q.front();
    q.pop_front();
    for (int u : g[v])
      if (d[u] < 0) {
        d[u] = d[v] + 1;
        q.push_back(u);
      }
  }
  return d;
}

int main(int argc, char** argv) {
  upcxx::init();
  bool no_finalize = false, barrier_sync = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--no-finalize")) no_finalize = true;
    if (!strcmp(argv[i], "--sync=barrier")) barrier_sync = true;
  }
  int me = upcxx::rank_me(), P = upcxx::rank_n();
  int errors = 0;
  int searches = 0;

  for (int kind = 0; kind < 2; kind++) {
    auto edges = make_edges(kind);
    block = (N + P - 1) / P;
    lo = min(N, me * block);
    hi = min(N, lo + block);
    adj.assign(hi - lo, {});
    for (auto& e : edges) {
      if (owner(e.first) == me) adj[e.first - lo].push_back(e.second);
      if (owner(e.second) == me) adj[e.second - lo].push_back(e.first);
    }

    for (int rep = 0; rep < (kind == 0 ? 8 : 2); rep++) {
      // rank 0 chooses the root
      int root = 0;
      if (me == 0) root = kind == 1 && rep == 0 ? 0 : int(mix(1000 + kind * 10 + rep) % N);
      root = upcxx::broadcast(root, 0).wait();

      dist.assign(hi - lo, -1);
      next_frontier.clear();
      received.assign(N + 2, 0);
      vector<int> frontier;
      if (owner(root) == me) {
        dist[root - lo] = 0;
        frontier.push_back(root);
      }
      upcxx::barrier();

      int level = 0;
      long frontier_size = 1;
      while (frontier_size > 0) {
        vector<long> sent(P, 0);
        for (int v : frontier)
          for (int u : adj[v - lo]) {
            upcxx::rpc_ff(owner(u),
                          [](int u, int d) {
                            received[d]++;
                            if (dist[u - lo] == -1) {
                              dist[u - lo] = d;
                              next_frontier.push_back(u);
                            }
                          },
                          u, level + 1);
            sent[owner(u)]++;
          }

        if (barrier_sync) {
          upcxx::barrier();
        } else {
          vector<long> expected(P);
          upcxx::reduce_all(sent.data(), expected.data(), P, upcxx::op_fast_add).wait();
          while (received[level + 1] < expected[me]) upcxx::progress();
        }

        frontier.swap(next_frontier);
        next_frontier.clear();
        frontier_size = upcxx::reduce_all((long)frontier.size(), upcxx::op_fast_add).wait();
        level++;
      }

      // check against the serial search
      vector<int> want = serial_bfs(edges, root);
      int bad = 0;
      for (int v = lo; v < hi; v++)
        if (dist[v - lo] != want[v]) {
          if (bad++ < 3)
            fprintf(stderr, "rank %d: check failed: graph %d root %d vertex %d has distance %d, serial %d\n", me,
                    kind, root, v, dist[v - lo], want[v]);
        }
      int levels_serial = *max_element(want.begin(), want.end()) + 1;
      if (level != levels_serial) {
        fprintf(stderr, "rank %d: check failed: %d levels, serial %d\n", me, level, levels_serial);
        bad++;
      }
      errors += bad;
      searches++;
      upcxx::barrier();
    }
  }

  int all_errors = upcxx::reduce_all(errors, upcxx::op_fast_add).wait();
  if (me == 0) {
    if (all_errors)
      printf("bfs: check failed (%d wrong distances in %d searches)\n", all_errors, searches);
    else
      printf("bfs: OK\n");
    fflush(stdout);
  }
  if (no_finalize) return all_errors ? 1 : 0;  // no upcxx::finalize(), as many programs do
  upcxx::finalize();
  return all_errors ? 1 : 0;
}
