// <upcxx/view.hpp>: a header name the UPC++ reference implementation installs and programs
// include directly. Here it brings in view, make_view and deserializing_iterator
// (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/serialization.hpp"
