// The second object of the two-object program (see two_tu_main.cpp).
#include <upcxx/upcxx.hpp>

int part_rank_sum() {
  const int n = upcxx::rank_n();
  return n * (n - 1) / 2;
}
