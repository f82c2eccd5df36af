// Every value UPCXX_SERIALIZED_VALUES lists must itself be Serializable (spec 6.2.2).
// expect: every expression listed in UPCXX_SERIALIZED_VALUES must be Serializable
// first: yes
#include <string>

#include <upcxx/upcxx.hpp>

struct label {  // not trivially copyable, and no serialization of its own
  std::string text;
};
struct tagged {
  label tag;
  int value = 0;
  tagged() = default;
  tagged(label l, int v) : tag(std::move(l)), value(v) {}
  UPCXX_SERIALIZED_VALUES(tag, value)
};

int main() {
  tagged a;
  upcxx::rpc_ff(0, [](const tagged&) {}, a);
}
