// Gannet's implementation of the UPC++ v1.0 API (specification revision 2020.10.0).
// Include this one header; it includes the rest.
//
// For compatibility with programs written against the UPC++ reference implementation, whose
// umbrella header brings in much of the standard library transitively (programs that use
// assert, memcpy, std::unordered_map or std::accumulate without including their headers
// compile there), this header includes those headers too (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

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
