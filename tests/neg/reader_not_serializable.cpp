// A custom deserializer may read only Serializable types (spec 6.8.2); the rule comes before
// the error of the statement that uses the result.
// expect: Reader::read<T>\(\): T must be Serializable
// first: yes
#include <upcxx/upcxx.hpp>

struct opaque {
  opaque() {}
  opaque(const opaque&) {}
  virtual ~opaque() {}
};

struct wrapper {
  opaque inside;
  struct upcxx_serialization {
    template <typename Writer>
    static void serialize(Writer&, const wrapper&) {}
    template <typename Reader>
    static wrapper* deserialize(Reader& r, void* spot) {
      auto* w = new (spot) wrapper;
      w->inside = r.template read<opaque>();
      return w;
    }
  };
};

int main() {
  wrapper w;
  upcxx::rpc_ff(0, [](const wrapper&) {}, w);
}
