// With two_tu_part.cpp: a program built from two separately compiled objects.
#include <upcxx/upcxx.hpp>

#include <iostream>

int part_rank_sum();  // two_tu_part.cpp: the sum of all ranks, computed by rank arithmetic

int main() {
  upcxx::init();
  if (upcxx::rank_me() == 0) std::cout << "two objects: rank sum " << part_rank_sum() << std::endl;
  upcxx::finalize();
  return 0;
}
