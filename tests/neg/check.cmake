# Must-not-compile test (or must-warn, with -Werror in its flags): compiles SOURCE with -fsyntax-only, expects the compiler to fail,
# and expects its diagnostics to match the regex on the file's "// expect:" line. STD is the
# language mode (default c++20).
file(STRINGS ${SOURCE} expect_line REGEX "^// expect: ")
string(REGEX REPLACE "^// expect: " "" expect "${expect_line}")
# "// flags: ..." adds compiler flags (e.g. -Werror=... to make a warning the failure).
file(STRINGS ${SOURCE} flags_line REGEX "^// flags: ")
string(REGEX REPLACE "^// flags: " "" flags "${flags_line}")
separate_arguments(flags)
if(NOT STD)
  set(STD c++20)
endif()
execute_process(COMMAND ${CXX} -std=${STD} -fsyntax-only ${flags} -I${INCLUDE} ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled with -std=${STD}, but it must not")
endif()
if(NOT "${out}${err}" MATCHES "${expect}")
  message(FATAL_ERROR "${SOURCE} failed to compile (-std=${STD}) without the expected diagnostic /${expect}/:\n${err}")
endif()
# "// first: yes": the expected diagnostic must be the first error the compiler prints (a
# static_assert naming the rule, not a template error deep inside the library).
file(STRINGS ${SOURCE} first_line REGEX "^// first: yes")
if(first_line)
  string(REGEX MATCH "[^\n]*error:[^\n]*" first_error "${err}")
  if(NOT "${first_error}" MATCHES "${expect}")
    message(FATAL_ERROR "${SOURCE} (-std=${STD}): the first error is not the expected /${expect}/ but:\n${first_error}")
  endif()
endif()
message(STATUS "rejected as expected (-std=${STD}): ${SOURCE}")
