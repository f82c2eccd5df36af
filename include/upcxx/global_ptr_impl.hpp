// <upcxx/global_ptr_impl.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in global_ptr (docs/compatibility.md).
#pragma once

#include "upcxx/global_ptr.hpp"
