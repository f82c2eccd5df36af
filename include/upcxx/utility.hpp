// <upcxx/utility.hpp>: a header name the UPC++ reference implementation installs and programs
// include directly. Here it brings in say and other utilities (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/say.hpp"
#include "upcxx/os_env.hpp"
