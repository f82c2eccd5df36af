// expect: upcxx::when_all\(\) was given a container of futures
// flags: -Werror=deprecated-declarations
// Debug codemode: when_all of a std::vector of futures compiles and behaves as in UPC++ (the
// vector is one value; the result is ready at once) but warns at the call, naming the fix.
// The warning is made an error here so that the test sees it; tests/spmd/spmd_barrier_delivery
// runs the same call. In opt codemode there is no warning.
#include <upcxx/upcxx.hpp>

#include <vector>

void f(std::vector<upcxx::future<>>& futures) { upcxx::when_all(futures).wait(); }
