// Programs written against the reference implementation often use the standard library
// through <upcxx/upcxx.hpp> alone: its umbrella header brought these in (graph programs use
// LONG_MAX, others std::sqrt, std::mutex, std::numeric_limits...). Only that header is
// included here, on purpose: each name below comes from a header UPC++ 2020.10's umbrella
// header brings in (docs/compatibility.md lists them).
#include <upcxx/upcxx.hpp>

namespace {

// One use of a name from each of the C and C++ headers added for this; false if any result
// is wrong. Every result depends on run-time values, so none is folded away.
bool more_headers_work(int me) {
  bool ok = true;
  long smallest = LONG_MAX;                                   // <climits>
  for (long v : {7L, 3L, 9L}) smallest = std::min(smallest, v + me);
  ok = ok && smallest == 3 + me && INT_MAX == std::numeric_limits<int>::max() &&  // <limits>
       LONG_MAX == std::numeric_limits<long>::max();
  ok = ok && std::sqrt(16.0 + me * 0.0) == 4.0 && std::fabs(std::pow(2.0, 10) - 1024.0) < 1e-9;  // <cmath>
  ok = ok && std::isalpha('a' + me % 2) && !std::isdigit('x') && std::toupper('q') == 'Q';  // <cctype>
  std::mutex m;                                               // <mutex>
  int guarded = 0;
  {
    std::lock_guard<std::mutex> lock(m);
    guarded = me + 1;
  }
  ok = ok && guarded == me + 1;
  std::forward_list<int> fl{1, 2, 3};                         // <forward_list>
  fl.push_front(me);
  ok = ok && std::accumulate(fl.begin(), fl.end(), 0) == 6 + me;
  ok = ok && std::distance(fl.begin(), std::next(fl.begin(), 2)) == 2;  // <iterator>
  std::vector<int> copied;
  std::copy(fl.begin(), fl.end(), std::back_inserter(copied));
  ok = ok && copied.size() == 4;
  errno = 0;                                                  // <cerrno>
  std::strtol("99999999999999999999999", nullptr, 10);
  ok = ok && errno == ERANGE;
  ok = ok && std::setlocale(LC_ALL, nullptr) != nullptr;      // <clocale>
  ok = ok && std::locale::classic().name() == "C";            // <locale>
  std::time_t now = std::time(nullptr);                       // <ctime>
  ok = ok && now > 0 && std::difftime(now, now) == 0.0;
  ok = ok && std::wcslen(L"gannet") == 6;                     // <cwchar>
  ok = ok && std::iswalpha(L'g') && !std::iswdigit(L'g');     // <cwctype>
  std::atomic<int> counter{me};                               // <atomic>
  counter.fetch_add(2, std::memory_order_relaxed);
  ok = ok && counter.load() == me + 2;
  using milli_t = std::ratio<1, 1000>;                        // <ratio>
  ok = ok && milli_t::den == 1000 && std::ratio_multiply<milli_t, std::kilo>::num == 1;
  std::error_code ec = std::make_error_code(std::errc::invalid_argument);  // <system_error>
  ok = ok && ec.value() == EINVAL && ec != std::error_code();
  const std::type_info& ti = typeid(counter);                 // <typeinfo>
  ok = ok && ti == typeid(std::atomic<int>) && ti.name() != nullptr;
  std::exception_ptr caught;                                  // <exception>, <stdexcept>
  try {
    throw std::runtime_error("rank " + std::to_string(me));
  } catch (...) {
    caught = std::current_exception();
  }
  ok = ok && caught != nullptr;
  std::initializer_list<int> il = {me, me};                   // <initializer_list>
  ok = ok && il.size() == 2;
  std::istringstream in("41 1");
  std::istream& is = in;                                      // <istream>, <ios>
  int a = 0, b = 0;
  is >> std::dec >> a >> b;
  ok = ok && a + b == 42 && is.good() == false && !(is.rdstate() & std::ios_base::badbit);
  std::streambuf* sb = std::cout.rdbuf();                     // <streambuf>, <ostream>
  ok = ok && sb != nullptr;
  int* nothing = new (std::nothrow) int(me);                  // <new>
  ok = ok && nothing != nullptr && *nothing == me;
  delete nothing;
  // The POSIX headers of UPC++'s list.
  ok = ok && pthread_equal(pthread_self(), pthread_self());   // <pthread.h>
  ok = ok && sched_yield() == 0;                              // <sched.h>
  ok = ok && strcasecmp("GANNET", "gannet") == 0;             // <strings.h>
  char* scratch = static_cast<char*>(alloca(16));             // <alloca.h>
  scratch[0] = 'x';
  ok = ok && scratch[0] == 'x';
  return ok;
}

}  // namespace

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
  if (!more_headers_work(me)) {
    std::printf("compat check failed: results from the other standard headers on rank %d\n", me);
    std::abort();
  }
  if (!ok) {
    std::printf("compat check failed: standard library results on rank %d\n", me);
    std::abort();
  }
  upcxx::barrier();
  if (me == 0) std::cout << "r2020_10_transitive_headers: OK" << std::endl;
  upcxx::finalize();
}
