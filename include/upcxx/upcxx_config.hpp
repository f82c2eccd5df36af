// <upcxx/upcxx_config.hpp>: a header name the UPC++ reference implementation installs and
// programs include directly. Here it brings in configuration macros (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"
