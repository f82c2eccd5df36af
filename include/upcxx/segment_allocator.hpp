// <upcxx/segment_allocator.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in the shared heap: allocate, new_, delete_ and
// their sizes (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/allocate.hpp"
