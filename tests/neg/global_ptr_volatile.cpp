// expect: T must not be volatile
#include <upcxx/upcxx.hpp>
upcxx::global_ptr<volatile int> g;
