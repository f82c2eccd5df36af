// expect: cannot derive from [^ ]*final[^ ]* base [^ ]*upcxx::team|marked [^ ]*final
// team and atomic_domain<T> are final since UPC++ 2022.3: they cannot be base classes.
#include <cstdint>
#include <upcxx/upcxx.hpp>
struct my_team : upcxx::team {};
struct my_domain : upcxx::atomic_domain<std::int64_t> {};
my_team* t;
my_domain* d;
