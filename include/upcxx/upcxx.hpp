// Gannet's implementation of the UPC++ v1.0 API (specification revision 2020.10.0).
// Include this one header; it includes the rest.
//
// For compatibility with programs written against the UPC++ reference implementation, whose
// umbrella header brings in much of the standard library transitively (programs that use
// assert, memcpy, LONG_MAX, std::sqrt, std::mutex or std::unordered_map without including
// their headers compile there), this header includes every standard and C header UPC++
// 2020.10's does, in their C++ forms (docs/compatibility.md lists them).
#pragma once

#include "upcxx/version.hpp"
#include "upcxx/backend_fwd.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <climits>
#include <clocale>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cwchar>
#include <cwctype>
#include <deque>
#include <exception>
#include <forward_list>
#include <functional>
#include <initializer_list>
#include <ios>
#include <iosfwd>
#include <iostream>
#include <istream>
#include <iterator>
#include <limits>
#include <list>
#include <locale>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <numeric>
#include <ostream>
#include <ratio>
#include <set>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>
#if __cplusplus >= 202002L
#include <bit>
#include <compare>
#endif
// The POSIX headers UPC++'s brings in (pthread_self, sched_yield, bzero, alloca without
// an include compile there), where the system has them.
#if __has_include(<pthread.h>)
#include <pthread.h>
#endif
#if __has_include(<sched.h>)
#include <sched.h>
#endif
#if __has_include(<strings.h>)
#include <strings.h>
#endif
#if __has_include(<alloca.h>)
#include <alloca.h>
#endif

#include "upcxx/detail/diagnostics.hpp"
#include "upcxx/init.hpp"
#include "upcxx/global_ptr.hpp"
#include "upcxx/allocate.hpp"
#include "upcxx/team.hpp"
#include "upcxx/future.hpp"
#include "upcxx/promise.hpp"
#include "upcxx/persona.hpp"
#include "upcxx/completion.hpp"
#include "upcxx/rma.hpp"
#include "upcxx/serialization.hpp"
#include "upcxx/digest.hpp"
#include "upcxx/rpc.hpp"
#include "upcxx/vis.hpp"
#include "upcxx/dist_object.hpp"
#include "upcxx/collectives.hpp"
#include "upcxx/atomic.hpp"
#include "upcxx/say.hpp"
#include "upcxx/os_env.hpp"
#include "upcxx/make_allocator.hpp"
#include "upcxx/diagnostic.hpp"
#include "upcxx/detail/backend_gasnet.hpp"
