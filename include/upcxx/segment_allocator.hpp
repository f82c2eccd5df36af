// <upcxx/segment_allocator.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in the shared heap: allocate, new_, delete_ and their sizes (docs/compatibility.md).
#pragma once

#include "upcxx/allocate.hpp"
