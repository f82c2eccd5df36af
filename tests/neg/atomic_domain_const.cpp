// atomic_domain<T> of a const (or volatile) T is refused (spec 13.3 ¶6).
// expect: atomic_domain<T>: T must not be const or volatile
// first: yes
#include <upcxx/upcxx.hpp>

int main() { upcxx::atomic_domain<const long> ad({upcxx::atomic_op::load}); }
