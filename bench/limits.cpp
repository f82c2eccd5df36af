// gannet-bench-limits: prints the physical limits of this machine, one
// machine-readable row each (see limits.hpp).
//
//   gannet-bench-limits [--repeats N] [--target-ms MS]

#include "limits.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace {

[[noreturn]] void usage(char const* argv0) {
  std::fprintf(stderr, "usage: %s [--repeats N] [--target-ms MS]\n", argv0);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  gannet::bench::options opt;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
      char* end = nullptr;
      long const v = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 1 || v > 100000) usage(argv[0]);
      opt.repeats = int(v);
    } else if (std::strcmp(argv[i], "--target-ms") == 0 && i + 1 < argc) {
      char* end = nullptr;
      double const v = std::strtod(argv[++i], &end);
      if (*end != '\0' || !(v > 0) || v > 10000) usage(argv[0]);
      opt.target_ms = v;
    } else {
      usage(argv[0]);
    }
  }

  try {
    gannet::bench::print_limits_header(opt);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "gannet-bench-limits: %s\n", e.what());
    return 1;
  }
  return 0;
}
