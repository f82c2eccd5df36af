// Names of the UPC++ reference implementation that programs print, compare and test, used
// the way programs use them: operator<< and std::hash on team_id, the ordering of
// deserializing_iterator (`it < view.end()`), serialization_traits<T>::is_serializable and
// is_actually_trivially_serializable for any T, upcxx::backend::gasnet::am_size_rdzv_cutover
// to size RPC payloads, and fatal_error from <upcxx/diagnostic.hpp>.
//
// With an argument, for the failure-path tests (tests/CMakeLists.txt): "fatal-error" calls
// upcxx::fatal_error on rank 0 (the 2020.10 spelling), "fatal-error-detail" calls
// upcxx::detail::fatal_error (2021.3 and later) on the last rank, "fatal-error-macro" uses
// UPCXX_FATAL_ERROR with a streamed message on rank 0.
#include <upcxx/diagnostic.hpp>
#include <upcxx/upcxx.hpp>

#include <cstddef>
#include <functional>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "compat_check.hpp"

struct not_serializable {
  not_serializable() = default;
  not_serializable(const not_serializable&) {}  // not trivially copyable, no serialization
  int x = 0;
};
struct fields {
  int a;
  std::string s;
  UPCXX_SERIALIZED_FIELDS(a, s)
};

static_assert(!upcxx::serialization_traits<not_serializable>::is_serializable &&
                  !upcxx::serialization_traits<not_serializable>::is_actually_trivially_serializable,
              "a type that is not Serializable");
static_assert(upcxx::serialization_traits<double>::is_serializable &&
                  upcxx::serialization_traits<double>::is_actually_trivially_serializable,
              "a TriviallySerializable type");
static_assert(upcxx::serialization_traits<fields>::is_serializable &&
                  !upcxx::serialization_traits<fields>::is_actually_trivially_serializable,
              "serialized field by field");
static_assert(upcxx::serialization_traits<std::vector<int>>::is_serializable &&
                  !upcxx::serialization_traits<std::vector<int>>::is_actually_trivially_serializable,
              "a container");

// A program's copy path, chosen by the trait: memcpy for trivially serializable elements.
template <typename T>
std::size_t bytes_to_copy(const std::vector<T>& v) {
  return upcxx::serialization_traits<T>::is_actually_trivially_serializable ? v.size() * sizeof(T) : 0;
}

template <typename Id>
std::string printed(Id id) {
  std::ostringstream os;
  os << id;
  return os.str();
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n(), peer = (me + 1) % n;

  if (mode == "fatal-error") {
    upcxx::barrier();
    if (me == 0) upcxx::fatal_error("k-mer table overflow: 4096 entries", "kcount");
    upcxx::barrier();
    upcxx::finalize();
    return 0;
  }
  if (mode == "fatal-error-detail") {
    upcxx::barrier();
    if (me == n - 1)
      upcxx::detail::fatal_error(std::string("bad input line ") + std::to_string(42), nullptr, __func__, __FILE__,
                                 __LINE__);
    upcxx::barrier();
    upcxx::finalize();
    return 0;
  }

  if (mode == "fatal-error-macro") {
    const int bucket = 17;
    if (me == 0) UPCXX_FATAL_ERROR("bucket " << bucket << " has no owner");
    upcxx::barrier();
    upcxx::finalize();
    return 0;
  }

  // fatal_error: one set of functions under both names, in the 2020.10 and 2020.3 forms.
  using five = void (*)(const char*, const char*, const char*, const char*, int);
  using four = void (*)(const char*, const char*, const char*, int);
  COMPAT_CHECK(static_cast<five>(upcxx::fatal_error) == static_cast<five>(upcxx::detail::fatal_error));
  COMPAT_CHECK(static_cast<four>(upcxx::fatal_error) == static_cast<four>(upcxx::detail::fatal_error));

  // team_id: printed, compared, hashed.
  upcxx::team_id world_id = upcxx::world().id(), local_id = upcxx::local_team().id();
  const std::string world_text = printed(world_id);
  COMPAT_CHECK(!world_text.empty() && world_text == printed(upcxx::world().id()));
  COMPAT_CHECK(printed(upcxx::team_id()) == "team_id(invalid)");
  COMPAT_CHECK(world_text != printed(upcxx::team_id()));
  COMPAT_CHECK((world_id == local_id) == (world_text == printed(local_id)));
  // Every rank prints world's id alike (a team_id is equal across the team).
  std::string root_text = upcxx::rpc(0, [](upcxx::team_id id) {
                            std::ostringstream os;
                            os << id;
                            return os.str();
                          }, world_id).wait();
  COMPAT_CHECK(root_text == world_text);
  COMPAT_CHECK(std::hash<upcxx::team_id>()(world_id) == std::hash<upcxx::team_id>()(upcxx::world().id()));
  COMPAT_CHECK(!(world_id < world_id) && world_id <= world_id && world_id >= world_id);
  upcxx::team odd_even = upcxx::world().split(me % 2, me);
  COMPAT_CHECK(odd_even.id() != world_id && printed(odd_even.id()) != world_text);
  COMPAT_CHECK((odd_even.id() < world_id) != (odd_even.id() > world_id));

  // dist_id: printed alike on every rank, differently for two objects.
  upcxx::dist_object<int> d1(1), d2(2);
  const std::string d1_text = printed(d1.id());
  COMPAT_CHECK(d1_text.rfind("dist_id(", 0) == 0 && d1_text != printed(d2.id()));
  COMPAT_CHECK(upcxx::rpc(0, [](upcxx::dist_id<int> id) {
                 std::ostringstream os;
                 os << id;
                 return os.str();
               }, d1.id()).wait() == d1_text);

  // global_ptr compared with nullptr on either side.
  {
    upcxx::global_ptr<int> null_p, some = upcxx::new_<int>(5);
    upcxx::global_ptr<const int> null_c, some_c = some;
    COMPAT_CHECK(nullptr == null_p && !(nullptr != null_p) && nullptr == null_c && null_p == nullptr);
    COMPAT_CHECK(nullptr != some && nullptr != some_c && some != nullptr && !(nullptr == some));
    COMPAT_CHECK(nullptr < some && nullptr <= some && !(nullptr > some) && !(nullptr >= some) && some > nullptr);
    COMPAT_CHECK(nullptr <= null_p && nullptr >= null_p && !(nullptr < null_p) && !(nullptr > null_c));
    upcxx::delete_(some);
  }

  // deserializing_iterator: loops bounded by `<`, and the other comparisons.
  std::vector<std::string> words{"alpha", "beta", "gamma"};
  std::size_t letters = upcxx::rpc(
                            peer,
                            [](upcxx::view<std::string> v) {
                              std::size_t total = 0, count = 0;
                              for (auto it = v.begin(); it < v.end(); ++it, ++count) total += (*it).size();
                              auto b = v.begin(), e = v.end(), second = ++v.begin();
                              COMPAT_CHECK(count == 3);
                              COMPAT_CHECK(b < second && second < e && b <= b && b <= e && e > b && e >= e &&
                                           second >= b && !(e < e) && !(b > second));
                              return total;
                            },
                            upcxx::make_view(words))
                            .wait();
  COMPAT_CHECK(letters == 14);
  bool empty_ok = upcxx::rpc(
                      peer,
                      [](upcxx::view<std::string> v) {
                        return !(v.begin() < v.end()) && v.begin() <= v.end() && v.begin() >= v.end();
                      },
                      upcxx::make_view(std::vector<std::string>{}))
                      .wait();
  COMPAT_CHECK(empty_ok);

  COMPAT_CHECK(bytes_to_copy(std::vector<double>(4)) == 4 * sizeof(double));
  COMPAT_CHECK(bytes_to_copy(std::vector<fields>(4)) == 0);

  // am_size_rdzv_cutover: set by init(), at least its minimum; RPCs just below and just
  // above it (the two protocols) both arrive intact.
  const std::size_t cutover = upcxx::backend::gasnet::am_size_rdzv_cutover;
  COMPAT_CHECK(cutover >= upcxx::backend::gasnet::am_size_rdzv_cutover_min);
  for (std::size_t bytes : {cutover - 128, cutover + 128, 4 * cutover}) {
    std::vector<char> payload(bytes);
    for (std::size_t i = 0; i < bytes; ++i) payload[i] = static_cast<char>((i * 7 + static_cast<std::size_t>(me)) % 251);
    long expect = std::accumulate(payload.begin(), payload.end(), 0L);
    long got = upcxx::rpc(
                   peer, [](const std::vector<char>& p, std::size_t size) {
                     COMPAT_CHECK(p.size() == size);
                     return std::accumulate(p.begin(), p.end(), 0L);
                   },
                   payload, bytes)
                   .wait();
    COMPAT_CHECK(got == expect);
  }
  // Every rank sees the same cutover.
  COMPAT_CHECK(upcxx::broadcast(cutover, 0).wait() == cutover);

  odd_even.destroy();
  upcxx::barrier();
  if (me == 0) std::cout << "r2020_10_reference_names: OK" << std::endl;
  upcxx::finalize();
}
