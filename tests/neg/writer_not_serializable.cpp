// A custom serializer may write only Serializable objects (spec 6.8.2).
// expect: Writer::write\(object\): the object's type must be Serializable
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
    static void serialize(Writer& w, const wrapper& x) {
      w.write(x.inside);
    }
    template <typename Reader>
    static wrapper* deserialize(Reader&, void* spot) {
      return new (spot) wrapper;
    }
  };
};

int main() {
  wrapper w;
  upcxx::rpc_ff(0, [](const wrapper&) {}, w);
}
