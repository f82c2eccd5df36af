// <upcxx/memberof.hpp>: a header name the UPC++ reference implementation installs and programs
// include directly. Here it brings in upcxx_memberof and upcxx_memberof_general
// (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/global_ptr.hpp"
