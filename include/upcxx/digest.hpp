// upcxx::digest: a 128-bit hash value, the identifier type of the UPC++ reference
// implementation (it names teams and distributed objects there). Not in any specification
// revision; programs use it as a key or identifier built by hashing words together:
//
//   upcxx::digest d = upcxx::digest::zero().eat(rank).eat(step, tag);
//   std::unordered_map<upcxx::digest, T> table;   // std::hash<upcxx::digest> is provided
//
// A digest is a plain aggregate of two words (w0, w1), TriviallySerializable, so it travels
// in RPCs as its 16 bytes. eat() is a pure function of the digest and the words eaten: every
// rank computes the same digest from the same words. Gannet's mixing function is its own,
// so the numeric values differ from the reference implementation's (programs that print or
// persist digests see other numbers; equality, ordering and hashing behave alike).
// Everything here is local and has progress level none.
#pragma once

#include "upcxx/version.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>

namespace upcxx {

struct digest {
  std::uint64_t w0, w1;

  // The digest of nothing: both words zero.
  static constexpr digest zero() { return digest{0, 0}; }

  // The digest of this one followed by the words x0, x1. Different inputs give different
  // digests with overwhelming probability; the same inputs always give the same digest.
  constexpr digest eat(std::uint64_t x0, std::uint64_t x1 = 0) const {
    std::uint64_t a = w0 ^ mix(x0 + 0x9e3779b97f4a7c15u);
    std::uint64_t b = w1 ^ mix(x1 + 0xc2b2ae3d27d4eb4fu);
    a = mix(a + rotl(b, 23) + 0x165667b19e3779f9u);
    b = mix(b ^ rotl(a, 41) ^ 0x27d4eb2f165667c5u);
    return digest{a, b};
  }
  constexpr digest eat(digest that) const { return eat(that.w0, that.w1); }

  // Lexicographic on (w0, w1).
  friend constexpr bool operator==(digest a, digest b) { return a.w0 == b.w0 && a.w1 == b.w1; }
  friend constexpr bool operator!=(digest a, digest b) { return !(a == b); }
  friend constexpr bool operator<(digest a, digest b) { return a.w0 < b.w0 || (a.w0 == b.w0 && a.w1 < b.w1); }
  friend constexpr bool operator>(digest a, digest b) { return b < a; }
  friend constexpr bool operator<=(digest a, digest b) { return !(b < a); }
  friend constexpr bool operator>=(digest a, digest b) { return !(a < b); }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  // A bijective 64-bit finalizer: every output bit depends on every input bit.
  static constexpr std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185u;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44du;
    x ^= x >> 33;
    return x;
  }
};

// Prints {w0,w1}.
inline std::ostream& operator<<(std::ostream& o, digest x) { return o << '{' << x.w0 << ',' << x.w1 << '}'; }

namespace detail {
using digest = ::upcxx::digest;  // where UPC++ 2021.3 and later keep it
}  // namespace detail

}  // namespace upcxx

// The first word: already well mixed by eat().
namespace std {
template <>
struct hash<upcxx::digest> {
  size_t operator()(upcxx::digest x) const noexcept { return static_cast<size_t>(x.w0); }
};
}  // namespace std
