// Parsing of memory sizes as UPC++ users write them: "128MB", "2GB", "1G", "512k",
// "4096" (bytes), "50%" (of physical memory). Used by the launcher and by init.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gannet::util {

struct size_spec {
  std::uint64_t bytes = 0;   // absolute size, when percent == 0
  double percent = 0;        // 0 < percent <= 100 for "N%"
};

// Returns nullopt and sets *why for anything that is not a size.
std::optional<size_spec> parse_size(std::string_view text, std::string* why);

// Resolves a spec to bytes per process: a percentage is of physical memory, split evenly
// between the `local_ranks` processes on this machine (UPC++ programmer's guide §2.3).
std::uint64_t resolve_size(const size_spec& s, int local_ranks);

std::uint64_t physical_memory_bytes();

// The shared-heap size a UPC++ user set in the environment, as text parse_size reads, the
// way UPC++ reads it: UPCXX_SHARED_HEAP_SIZE, where a number without a unit is megabytes and
// MAX the most the machine gives (here half its memory, split between its ranks); else the
// older UPCXX_SEGMENT_MB (megabytes). Empty when neither is set; *name says which was read.
std::string upcxx_heap_from_env(const char** name);

// "128 MiB", "1.5 GiB": for messages.
std::string format_size(std::uint64_t bytes);

}  // namespace gannet::util
