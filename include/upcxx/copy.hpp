// <upcxx/copy.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in upcxx::copy (docs/compatibility.md).
#pragma once

#include "upcxx/vis.hpp"
