// <upcxx/concurrency.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in thread-safety utilities of personas (docs/compatibility.md).
#pragma once

#include "upcxx/persona.hpp"
