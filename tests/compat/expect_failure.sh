#!/bin/sh
# expect_failure.sh COMMAND...: runs COMMAND with its stderr on stdout, then prints
# "expect_failure: exit status N". The failure-path CTest cases (tests/CMakeLists.txt) match
# the expected message followed by a non-zero status.
"$@" 2>&1
echo "expect_failure: exit status $?"
