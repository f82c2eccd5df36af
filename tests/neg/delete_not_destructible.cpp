// delete_ runs the destructor (spec 2.4): a type whose destructor is deleted is refused.
// expect: upcxx::delete_: T must be Destructible
// first: yes
#include <upcxx/upcxx.hpp>

struct pinned {
  ~pinned() = delete;
  int x;
};

int main() { upcxx::delete_(upcxx::global_ptr<pinned>()); }
