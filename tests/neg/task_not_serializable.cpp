// A task's function object follows rpc_ff's rules (gannet/tasks.hpp, spec 6.5, 9.2): a lambda
// capturing a std::string by value is neither trivially copyable nor Serializable; the error
// says so first.
// expect: an RPC's function object must be a function, a lambda or functor that is trivially copyable
#include <string>

#include <gannet/tasks.hpp>
#include <upcxx/upcxx.hpp>

int main() {
  upcxx::init();
  {
    gannet::task_pool pool;
    std::string s = "x";
    pool.spawn(0, [s](gannet::task_pool&) { (void)s.size(); });
    pool.run();
  }
  upcxx::finalize();
}
