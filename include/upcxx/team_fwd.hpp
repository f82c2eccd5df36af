// <upcxx/team_fwd.hpp>: a header name the UPC++ reference implementation installs, which programs
// include directly. Here it brings in team, team_id, world and local_team (docs/compatibility.md).
#pragma once

#include "upcxx/team.hpp"
