# Compiles each header in HEADERS (comma-separated, relative to INCLUDE) alone, as its own
# translation unit, with CXX -std=STD -fsyntax-only plus FLAGS (comma-separated), and fails on any
# diagnostic: the public headers must compile cleanly, warnings included, in every
# language mode a program may use. For compilers other than the one building the project
# (the build's own compiler checks the same through the header_alone_cxx* targets).
string(REPLACE "," ";" HEADERS "${HEADERS}")
string(REPLACE "," ";" FLAGS "${FLAGS}")
foreach(h ${HEADERS})
  set(tu "${WORK}/syntax_${STD}.cpp")
  file(WRITE ${tu} "#include <${h}>\n#include <${h}>\nint main() { return 0; }\n")
  execute_process(COMMAND ${CXX} -std=${STD} -fsyntax-only ${FLAGS} -I${INCLUDE} ${tu}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT "${out}${err}" STREQUAL "")
    message(FATAL_ERROR "<${h}> alone, ${CXX} -std=${STD} ${FLAGS}:\n${out}${err}")
  endif()
endforeach()
list(LENGTH HEADERS n)
message(STATUS "${n} headers compile cleanly with ${CXX} -std=${STD}")
