// Programs written against the reference implementation often use the standard library
// through <upcxx/upcxx.hpp> alone: its umbrella header brought these in. Only that header is
// included here, on purpose.
#include <upcxx/upcxx.hpp>

int main() {
  upcxx::init();
  const int me = upcxx::rank_me();
  std::unordered_map<int, std::string> names{{me, "rank"}};
  std::map<int, int> squares;
  std::set<int> seen;
  std::unordered_set<int> seen_fast;
  std::list<int> order;
  std::deque<int> queue;
  std::array<int, 4> values{4, 3, 2, 1};
  for (int v : values) {
    squares[v] = v * v;
    seen.insert(v);
    seen_fast.insert(v);
    order.push_back(v);
    queue.push_front(v);
  }
  std::sort(values.begin(), values.end());
  int total = std::accumulate(values.begin(), values.end(), 0);
  char buf[16];
  std::memcpy(buf, "abc", 4);
  std::ostringstream out;
  out << total << buf << names[me].size();
  assert(total == 10);  // compiled away under NDEBUG; the check below is not
  bool ok = total == 10 && std::strcmp(buf, "abc") == 0 && out.str() == "10abc4" && squares[3] == 9 &&
            seen.size() == 4 && seen_fast.count(2) == 1 && order.front() == 4 && queue.front() == 1 &&
            std::is_same<decltype(values)::value_type, int>::value;
  if (!ok) {
    std::printf("compat check failed: standard library results on rank %d\n", me);
    std::abort();
  }
  upcxx::barrier();
  if (me == 0) std::cout << "r2020_10_transitive_headers: OK" << std::endl;
  upcxx::finalize();
}
