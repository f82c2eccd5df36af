// UPC++ 2022.9 serialization as its users write it: upcxx::optional as RPC argument and
// result, a class whose deserialize() constructs through the Storage it is given (and reads
// members with read_overwrite / read_into an optional), std::reference_wrapper arguments,
// deserializing into an optional from a view, and the reference implementation's
// upcxx::digest as the key of an unordered_map filled by RPCs.
#include <upcxx/upcxx.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "compat_check.hpp"

// A particle whose identity may not be copied casually: deserialization builds it in place.
class Particle {
 public:
  Particle(int id, std::string tag) : id_(id), tag_(std::move(tag)) {}
  Particle(const Particle&) = default;
  int id() const { return id_; }
  const std::string& tag() const { return tag_; }
  const upcxx::optional<double>& mass() const { return mass_; }
  void set_mass(double m) { mass_ = m; }

  struct upcxx_serialization {
    template <typename Writer>
    static void serialize(Writer& writer, const Particle& p) {
      writer.write(p.id_);
      writer.write(p.tag_);
      writer.write(p.mass_.has_value());
      if (p.mass_) writer.write(*p.mass_);
    }
    template <typename Reader, typename Storage>
    static Particle* deserialize(Reader& reader, Storage storage) {
      Particle* p = storage.construct(reader.template read<int>(), std::string());
      reader.template read_overwrite<std::string>(p->tag_);
      if (reader.template read<bool>()) reader.template read_into<double>(p->mass_);
      return p;
    }
  };

 private:
  int id_;
  std::string tag_;
  upcxx::optional<double> mass_;
};

// Where each rank's messages land, keyed by the digest of (sender, step).
std::unordered_map<upcxx::digest, std::string> inbox;

int main() {
  upcxx::init();
  const int me = upcxx::rank_me(), n = upcxx::rank_n();
  const int right = (me + 1) % n, left = (me + n - 1) % n;

  // optional arguments and results, empty and engaged.
  upcxx::optional<std::string> none;
  upcxx::optional<std::string> some = std::string("payload from ") + std::to_string(me);
  auto lengths = upcxx::rpc(
      right,
      [](const upcxx::optional<std::string>& a, upcxx::optional<std::string> b) -> upcxx::optional<std::size_t> {
        if (a.has_value() || !b) return upcxx::nullopt;
        return b->size();
      },
      none, some);
  upcxx::optional<std::size_t> len = lengths.wait();
  COMPAT_CHECK(len.has_value() && *len == some->size());
  auto nothing = upcxx::rpc(right, [](int x) { return x > 0 ? upcxx::make_optional(x) : upcxx::optional<int>(); }, -1);
  COMPAT_CHECK(!nothing.wait().has_value());

  // A class with the emplacing deserialize(), both ways.
  Particle p(me, "rank " + std::to_string(me));
  p.set_mass(1.5 * me);
  Particle back = upcxx::rpc(
                      right,
                      [](const Particle& q, int from) {
                        COMPAT_CHECK(q.id() == from && q.tag() == "rank " + std::to_string(from));
                        COMPAT_CHECK(q.mass() && *q.mass() == 1.5 * from);
                        Particle reply(upcxx::rank_me(), "reply");
                        return reply;  // no mass: the optional travels empty
                      },
                      p, me)
                      .wait();
  COMPAT_CHECK(back.id() == right && back.tag() == "reply" && !back.mass());

  // std::reference_wrapper arguments serialize their referents.
  std::string big(1000, 'r');
  std::vector<int> numbers{me, me + 1, me + 2};
  int total = upcxx::rpc(
                  right,
                  [](const std::string& s, const std::vector<int>& v) {
                    return static_cast<int>(s.size()) + v[0] + v[1] + v[2];
                  },
                  std::cref(big), std::ref(numbers))
                  .wait();
  COMPAT_CHECK(total == 1000 + 3 * me + 3);

  // A view of strings read element by element into an optional.
  std::vector<std::string> words{"one", "two", "three"};
  bool ok = upcxx::rpc(
                right,
                [](upcxx::view<std::string> v) {
                  upcxx::optional<std::string> slot;
                  std::size_t total_len = 0;
                  for (auto it = v.begin(); it != v.end(); ++it) total_len += it.deserialize_into(slot)->size();
                  return total_len == 11 && *slot == "three";
                },
                upcxx::make_view(words))
                .wait();
  COMPAT_CHECK(ok);

  // digest as a key: every rank sends three messages to its right neighbour, which files
  // them under digests both sides compute independently.
  for (std::uint64_t step = 0; step < 3; ++step) {
    upcxx::digest key = upcxx::digest::zero().eat(static_cast<std::uint64_t>(me), step);
    upcxx::rpc(
        right, [](upcxx::digest k, std::string text) { inbox[k] = std::move(text); }, key,
        "step " + std::to_string(step) + " from " + std::to_string(me))
        .wait();
  }
  upcxx::barrier();
  COMPAT_CHECK(inbox.size() == 3);
  for (std::uint64_t step = 0; step < 3; ++step) {
    upcxx::digest key = upcxx::digest::zero().eat(static_cast<std::uint64_t>(left), step);
    auto found = inbox.find(key);
    COMPAT_CHECK(found != inbox.end());
    COMPAT_CHECK(found->second == "step " + std::to_string(step) + " from " + std::to_string(left));
  }
  COMPAT_CHECK(std::hash<upcxx::digest>{}(upcxx::digest::zero().eat(1)) ==
               std::hash<upcxx::digest>{}(upcxx::digest::zero().eat(1)));

  upcxx::barrier();
  if (me == 0) std::printf("r2022_9_serialization: OK\n");
  upcxx::finalize();
}
