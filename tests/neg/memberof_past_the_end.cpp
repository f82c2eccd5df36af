// upcxx_memberof of an array element past the array's end names memory outside the object.
// expect: upcxx_memberof: the member lies outside the object
// first: yes
#include <upcxx/upcxx.hpp>

struct sample {
  char tag[4];
};

int main() {
  upcxx::global_ptr<sample> s = upcxx::new_<sample>();
  upcxx::global_ptr<char> past = upcxx_memberof(s, tag[6]);
  (void)past;
}
