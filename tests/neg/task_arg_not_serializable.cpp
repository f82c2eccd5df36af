// A task's arguments follow rpc_ff's rules (gannet/tasks.hpp, spec 9.2): a class holding a
// std::string with no serialization is not Serializable; the error says so first.
// expect: an RPC argument must be Serializable, dist_object<T>& or team&
#include <string>

#include <gannet/tasks.hpp>
#include <upcxx/upcxx.hpp>

struct not_serializable {
  std::string name;
};

int main() {
  upcxx::init();
  {
    gannet::task_pool pool;
    pool.spawn(0, [](gannet::task_pool&, const not_serializable& n) { (void)n.name.size(); }, not_serializable{"x"});
    pool.run();
  }
  upcxx::finalize();
}
