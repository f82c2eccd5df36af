// <upcxx/command.hpp>: a header name the UPC++ reference implementation installs and programs
// include directly. Here it brings in completion callbacks (docs/compatibility.md).
#pragma once

#include "upcxx/version.hpp"

#include "upcxx/completion.hpp"
