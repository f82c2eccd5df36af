// <upcxx/memberof.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in upcxx_memberof and upcxx_memberof_general (docs/compatibility.md).
#pragma once

#include "upcxx/global_ptr.hpp"
