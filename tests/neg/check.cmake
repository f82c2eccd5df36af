# Must-not-compile test: compiles SOURCE with -fsyntax-only, expects the compiler to fail,
# and expects its diagnostics to match the regex on the file's "// expect:" line.
file(STRINGS ${SOURCE} expect_line REGEX "^// expect: ")
string(REGEX REPLACE "^// expect: " "" expect "${expect_line}")
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -I${INCLUDE} ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must not")
endif()
if(NOT "${out}${err}" MATCHES "${expect}")
  message(FATAL_ERROR "${SOURCE} failed to compile without the expected diagnostic /${expect}/:\n${err}")
endif()
message(STATUS "rejected as expected: ${SOURCE}")
