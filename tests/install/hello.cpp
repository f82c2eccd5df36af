// Hello world of the UPC++ specification: every rank reports its rank and the job size.
#include <upcxx/upcxx.hpp>

#include <iostream>

int main() {
  upcxx::init();
  std::cout << "Hello from rank " << upcxx::rank_me() << " of " << upcxx::rank_n() << std::endl;
  upcxx::finalize();
  return 0;
}
