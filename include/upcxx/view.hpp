// <upcxx/view.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in view, make_view and deserializing_iterator (docs/compatibility.md).
#pragma once

#include "upcxx/serialization.hpp"
