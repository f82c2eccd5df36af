// expect: one of the kinds must be memory_kind::any
#include <upcxx/upcxx.hpp>
auto f(upcxx::global_ptr<int> g) { return upcxx::static_kind_cast<upcxx::memory_kind::cuda_device>(g); }
