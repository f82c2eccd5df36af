// Internals of upcxx/serialization.hpp (spec chapter 6). Not API: include
// <upcxx/serialization.hpp>. The RPC layer uses the byte stream directly:
//
//   serial_writer      appends bytes; starts in a caller's buffer, spills to the heap
//   serial_reader      reads them back; it is also the Reader user code sees
//   serialize_into / deserialize_from / deserialize_into / static_serialized_size
//
// Byte stream format. Every TriviallySerializable object is its bytes, placed at an offset
// that is a multiple of min(alignof(T), 16); padding bytes are unspecified. The writer
// computes padding from its own offset 0; the reader computes it from the address it reads
// at. The two agree because THE FIRST BYTE OF A STREAM IS READ FROM A 16-BYTE ALIGNED
// ADDRESS (the RPC layer guarantees it; heap buffers from ::operator new are 16-aligned).
// A payload of zero bytes is never padded, on either side, so write_sequence of an empty
// range matches a reader that reads nothing. Other encodings, all built from the above:
//
//   sequence container   [allocator][count: size_t][elements, as write_sequence writes them]
//   set / map            [comparator][allocator][count][elements]
//   unordered set / map  [hash][key_equal][allocator][count][elements]
//   std::optional        [engaged: bool][value if engaged]
//   pair/tuple/array     each element in order (when not TriviallySerializable as a whole)
//   view<T>, T trivial   [count][elements]                the reader's view points at them
//   view<T>, otherwise   [count][bytes: size_t][pad to 16][elements]
//
// Allocators, comparators, hashes and key_equals that are empty and TriviallySerializable
// (std::allocator, std::less, std::hash, ...) occupy no bytes: an empty class has no value
// bits to copy. The 16-byte pad in front of non-trivial view elements lets a received view
// be forwarded by copying its bytes (their padding stays valid at any 16-aligned offset).
//
// The implementation is in six parts, each including the ones it depends on; this file
// includes them in dependency order:
//
//   serialization_classify.hpp  macro plumbing, serial_kind, serializable_v, deserialized_t
//   serialization_stream.hpp    serial_writer, serial_reader, padding, shared helpers
//   serialization_kinds.hpp     serializer<T, K>: bytes, FIELDS, VALUES, custom, builtin
//   serialization_std.hpp       builtin<T> for strings, containers, optional, pair/tuple/array
//   serialization_view.hpp      builtin<view<T, It>> and view_access
//   serialization_dispatch.hpp  Writer/Reader member definitions, arrays, entry points
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/detail/serialization_classify.hpp"
#include "upcxx/detail/serialization_stream.hpp"
#include "upcxx/detail/serialization_kinds.hpp"
#include "upcxx/detail/serialization_std.hpp"
#include "upcxx/detail/serialization_view.hpp"
#include "upcxx/detail/serialization_dispatch.hpp"
