// One-process tests of the foundation API on the loopback transport: library state, global
// pointers (spec chapter 3), the shared heap (chapter 4), and the debug-codemode checks.
// Built without UPCXX_CODEMODE, i.e. in debug codemode.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>
#include <unordered_set>

#include <gannet/exchange.hpp>
#include <upcxx/upcxx.hpp>

namespace {

struct pod_pair {
  int a;
  double b;
  char name[8];
};

struct counted {
  static inline int live = 0;
  int v;
  counted() : v(7) { ++live; }
  explicit counted(int x) : v(x) { ++live; }
  ~counted() { --live; }
};

struct throws_third {
  static inline int built = 0;
  static inline int destroyed = 0;
  throws_third() {
    if (built == 2) throw std::runtime_error("third");
    ++built;
  }
  ~throws_third() { ++destroyed; }
};

class upcxx_env : public ::testing::Environment {
 public:
  void SetUp() override { upcxx::init(); }
  void TearDown() override { upcxx::finalize(); }
};

// ---- static properties (spec §3.2 ¶6) ----
static_assert(std::is_trivially_copyable_v<upcxx::global_ptr<int>>);
static_assert(std::is_trivially_destructible_v<upcxx::global_ptr<int>>);
static_assert(std::is_default_constructible_v<upcxx::global_ptr<int>>);
static_assert(std::is_convertible_v<upcxx::global_ptr<int>, upcxx::global_ptr<const int>>);
static_assert(!std::is_convertible_v<upcxx::global_ptr<const int>, upcxx::global_ptr<int>>);
static_assert(std::is_same_v<upcxx::global_ptr<int>::element_type, int>);
static_assert(std::is_same_v<upcxx::global_ptr<const int>::pointer_type, const int*>);
static_assert(upcxx::global_ptr<int>::kind == upcxx::memory_kind::host);
static_assert(std::is_convertible_v<upcxx::global_ptr<int>, upcxx::global_ptr<int, upcxx::memory_kind::any>>);
static_assert(std::is_same_v<decltype(upcxx::rank_me()), upcxx::intrank_t>);
static_assert(UPCXX_SPEC_VERSION == 20251000L);
static_assert(UPCXX_VERSION >= 20201000L);
#ifdef UPCXX_CODEMODE
#error "the unit tests are built in debug codemode"
#endif
static_assert(UPCXX_ASSERT_ENABLED);

struct incomplete;
[[maybe_unused]] upcxx::global_ptr<incomplete> g_incomplete;  // T may be incomplete

TEST(State, RankAndNesting) {
  EXPECT_TRUE(upcxx::initialized());
  EXPECT_EQ(upcxx::rank_me(), 0);
  EXPECT_EQ(upcxx::rank_n(), 1);
  upcxx::init();  // nested: counts only
  EXPECT_TRUE(upcxx::initialized());
  upcxx::finalize();
  EXPECT_TRUE(upcxx::initialized()) << "the outer init is still open";
  EXPECT_EQ(upcxx::world().rank_n(), 1);
  EXPECT_EQ(upcxx::world().rank_me(), 0);
  EXPECT_EQ(upcxx::local_team().rank_n(), 1);
  EXPECT_TRUE(upcxx::local_team_contains(0));
  EXPECT_EQ(upcxx::world()[0], 0);
  EXPECT_EQ(upcxx::world().from_world(0), 0);
  EXPECT_EQ(upcxx::world().from_world(3, -1), -1);
  upcxx::barrier();
  upcxx::barrier(upcxx::local_team());
  upcxx::progress();
  upcxx::progress(upcxx::progress_level::internal);
}

TEST(GlobalPtr, Null) {
  upcxx::global_ptr<int> a, b = nullptr;
  EXPECT_TRUE(a.is_null());
  EXPECT_FALSE(static_cast<bool>(a));
  EXPECT_TRUE(a.is_local()) << "spec 3.2 ¶39: null is local";
  EXPECT_EQ(a.local(), nullptr);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a + 0, a);
  EXPECT_EQ(a - a, 0);
  EXPECT_EQ(upcxx::to_global_ptr<int>(nullptr), a);
  EXPECT_EQ(upcxx::try_global_ptr<int>(nullptr), a);
  std::ostringstream s1, s2;
  s1 << a;
  s2 << b;
  EXPECT_EQ(s1.str(), s2.str());
}

TEST(GlobalPtr, ArithmeticAndComparison) {
  upcxx::global_ptr<long> g = upcxx::new_array<long>(10);
  ASSERT_FALSE(g.is_null());
  EXPECT_EQ(g.where(), 0);
  EXPECT_TRUE(g.is_local());
  long* p = g.local();
  for (int i = 0; i < 10; ++i) p[i] = i * i;
  upcxx::global_ptr<long> e = g + 10;  // one past the end
  EXPECT_EQ(e - g, 10);
  EXPECT_EQ(g - e, -10);
  EXPECT_EQ(10 + g, e);
  EXPECT_EQ(e - 10, g);
  upcxx::global_ptr<long> q = g;
  EXPECT_EQ(*(++q).local(), 1);
  EXPECT_EQ(*(q++).local(), 1);
  EXPECT_EQ(*q.local(), 4);
  EXPECT_EQ(*(q--).local(), 4);
  EXPECT_EQ(*(--q).local(), 0);
  q += 5;
  EXPECT_EQ(*q.local(), 25);
  q -= 2;
  EXPECT_EQ(*q.local(), 9);
  EXPECT_TRUE(g < q && q > g && g <= g && g >= g && g != q && !(g == q));
  EXPECT_TRUE(g < e);
  std::less<upcxx::global_ptr<long>> lt;
  std::greater_equal<upcxx::global_ptr<long>> ge;
  EXPECT_TRUE(lt(g, e));
  EXPECT_TRUE(ge(e, g));
  std::set<upcxx::global_ptr<long>> ordered{e, g, q};
  EXPECT_EQ(*ordered.begin(), g);
  std::unordered_set<upcxx::global_ptr<long>> hashed;
  for (int i = 0; i < 10; ++i) hashed.insert(g + i);
  hashed.insert(g + 3);
  EXPECT_EQ(hashed.size(), 10u);
  EXPECT_EQ(std::hash<upcxx::global_ptr<long>>{}(g + 2), std::hash<upcxx::global_ptr<long>>{}(g + 2));
  std::ostringstream s1, s2, s3;
  s1 << g + 1;
  s2 << (g + 2) - 1;
  s3 << g;
  EXPECT_EQ(s1.str(), s2.str());
  EXPECT_NE(s1.str(), s3.str());

  // global_ptr<T> → global_ptr<const T>, and comparisons across them.
  upcxx::global_ptr<const long> c = g + 3;
  EXPECT_EQ(c, g + 3);
  EXPECT_EQ(*c.local(), 9);
  static_assert(std::is_same_v<decltype(c.local()), const long*>);
  EXPECT_EQ(c - g, 3);
  upcxx::delete_array(g);
}

TEST(GlobalPtr, RawConversionsAndCasts) {
  upcxx::global_ptr<pod_pair> g = upcxx::new_<pod_pair>(pod_pair{1, 2.5, "abc"});
  pod_pair* raw = g.local();
  EXPECT_EQ(upcxx::to_global_ptr(raw), g);
  EXPECT_EQ(upcxx::try_global_ptr(raw), g);
  EXPECT_EQ(upcxx::try_global_ptr(&raw->b), upcxx_memberof(g, b));
  int on_stack = 0;
  EXPECT_TRUE(upcxx::try_global_ptr(&on_stack).is_null()) << "not in any shared segment";
  static int in_data = 0;
  EXPECT_TRUE(upcxx::try_global_ptr(&in_data).is_null());

  // upcxx_memberof: member type, constness and arrays (spec 3.2 ¶103-106).
  auto gb = upcxx_memberof(g, b);
  static_assert(std::is_same_v<decltype(gb), upcxx::global_ptr<double>>);
  EXPECT_EQ(*gb.local(), 2.5);
  auto gname = upcxx_memberof(g, name);
  static_assert(std::is_same_v<decltype(gname), upcxx::global_ptr<char>>);
  EXPECT_EQ(gname.local(), raw->name);
  upcxx::global_ptr<const pod_pair> cg = g;
  auto cga = upcxx_memberof(cg, a);
  static_assert(std::is_same_v<decltype(cga), upcxx::global_ptr<const int>>);
  EXPECT_EQ(*cga.local(), 1);

  auto bytes = upcxx::reinterpret_pointer_cast<char>(g);
  EXPECT_EQ(static_cast<void*>(bytes.local()), static_cast<void*>(raw));
  EXPECT_EQ(bytes.where(), g.where());
  auto back = upcxx::static_pointer_cast<pod_pair>(upcxx::reinterpret_pointer_cast<void>(g));
  EXPECT_EQ(back, g);
  auto unconst = upcxx::const_pointer_cast<pod_pair>(cg);
  EXPECT_EQ(unconst, g);

  upcxx::global_ptr<pod_pair, upcxx::memory_kind::any> any = g;
  EXPECT_EQ(any.dynamic_kind(), upcxx::memory_kind::host);
  auto host = upcxx::static_kind_cast<upcxx::memory_kind::host>(any);
  EXPECT_EQ(host, g);
  auto dev = upcxx::dynamic_kind_cast<upcxx::memory_kind::cuda_device>(any);
  EXPECT_TRUE(dev.is_null());
  upcxx::delete_(g);
}

TEST(Heap, ConstructorsDestructorsAndAccounting) {
  EXPECT_EQ(upcxx::shared_segment_size(), std::size_t{128} << 20) << "default heap is 128 MiB";
  std::size_t used0 = upcxx::shared_segment_used();
  {
    auto one = upcxx::new_<counted>(42);
    EXPECT_EQ(counted::live, 1);
    EXPECT_EQ(one.local()->v, 42);
    EXPECT_GT(upcxx::shared_segment_used(), used0);
    upcxx::delete_(one);
    EXPECT_EQ(counted::live, 0);
  }
  {
    auto many = upcxx::new_array<counted>(100);
    EXPECT_EQ(counted::live, 100);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(many.local()[i].v, 7);
    upcxx::delete_array(many);
    EXPECT_EQ(counted::live, 0);
  }
  {
    // A throwing constructor destroys what was built and frees the storage (spec 4.2 ¶16).
    EXPECT_THROW(upcxx::new_array<throws_third>(5), std::runtime_error);
    EXPECT_EQ(throws_third::destroyed, 2);
  }
  void* raw = upcxx::allocate(1000, 256);
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(raw) % 256, 0u);
  upcxx::deallocate(raw);
  auto typed = upcxx::allocate<double>(16, 4096);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(typed.local()) % 4096, 0u);
  upcxx::deallocate(typed);
  auto typed2 = upcxx::allocate<int, 512>(3);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(typed2.local()) % 512, 0u);
  upcxx::deallocate(typed2);
  upcxx::deallocate(nullptr);
  upcxx::delete_(upcxx::global_ptr<counted>());
  upcxx::delete_array(upcxx::global_ptr<counted>());
  EXPECT_EQ(upcxx::shared_segment_used(), used0) << "everything was returned";
}

TEST(Heap, ExhaustionThrowsWithAHelpfulMessage) {
  std::size_t used0 = upcxx::shared_segment_used();
  try {
    upcxx::new_array<char>(std::size_t{1} << 30);
    FAIL() << "expected bad_shared_alloc";
  } catch (const upcxx::bad_shared_alloc& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("128 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("in use"), std::string::npos) << what;
    EXPECT_NE(what.find("--shared-heap"), std::string::npos) << what;
    EXPECT_NE(what.find("UPCXX_SHARED_HEAP_SIZE"), std::string::npos) << what;
  }
  const std::bad_alloc* as_base = nullptr;
  try {
    upcxx::new_<std::array<char, (std::size_t{1} << 28)>>();
  } catch (const std::bad_alloc& e) {
    as_base = &e;
  }
  EXPECT_NE(as_base, nullptr) << "bad_shared_alloc derives from std::bad_alloc";
  EXPECT_TRUE(upcxx::new_array<char>(std::size_t{1} << 30, std::nothrow).is_null());
  EXPECT_TRUE((upcxx::new_<std::array<char, (std::size_t{1} << 28)>>(std::nothrow)).is_null());
  EXPECT_EQ(upcxx::allocate(std::size_t{1} << 30), nullptr);
  EXPECT_EQ(upcxx::shared_segment_used(), used0);
  // Nearly the whole heap is still one block.
  void* big = upcxx::allocate((std::size_t{127} << 20));
  EXPECT_NE(big, nullptr);
  upcxx::deallocate(big);
}

TEST(Exchange, AllGatherOneRank) {
  auto v = gannet::all_gather(12345);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], 12345);
}

TEST(Say, PrefixesTheRank) {
  testing::internal::CaptureStdout();
  upcxx::say() << "hello " << 42;
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "[0] hello 42\n");
}

// ---- debug codemode: misuse dies with the caller's file and line ----
class DebugChecks : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(DebugChecks, UseBeforeInit) {
  EXPECT_DEATH(
      {
        while (upcxx::initialized()) upcxx::finalize();
        (void)upcxx::rank_me();
      },
      "api_test.cpp:[0-9]+: upcxx::rank_me\\(\\) called while UPC\\+\\+ is not initialized");
}

TEST_F(DebugChecks, BadRank) {
  EXPECT_DEATH((void)upcxx::world()[1], "team::operator\\[\\]: rank 1 is out of range \\[0, 1\\)");
  EXPECT_DEATH((void)upcxx::local_team_contains(-2), "rank -2 is out of range");
}

TEST_F(DebugChecks, ToGlobalPtrOfPrivateMemory) {
  int x = 0;
  EXPECT_DEATH((void)upcxx::to_global_ptr(&x), "api_test.cpp:[0-9]+: upcxx::to_global_ptr.*not in the shared segment");
}

TEST_F(DebugChecks, ArithmeticOnNull) {
  upcxx::global_ptr<int> null;
  EXPECT_DEATH((void)(null + 1), "arithmetic on a null global_ptr");
  EXPECT_DEATH(++null, "arithmetic on a null global_ptr");
}

TEST_F(DebugChecks, FreeingAnotherRanksOrPrivateMemory) {
  int x = 0;
  EXPECT_DEATH(upcxx::deallocate(&x), "not a pointer into this rank's shared heap");
}

TEST_F(DebugChecks, FinalizeWithoutInit) {
  EXPECT_DEATH(
      {
        while (upcxx::initialized()) upcxx::finalize();
        upcxx::finalize();
      },
      "finalize\\(\\) called while UPC\\+\\+ is not initialized");
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new upcxx_env);
  return RUN_ALL_TESTS();
}
