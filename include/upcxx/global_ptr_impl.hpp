// <upcxx/global_ptr_impl.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in global_ptr (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/global_ptr.hpp"
