# Writes actorcrawl(1), gzipped, from the built binary's `--man-page` (the
# text of its --help), run through the cross-compiling emulator when there
# is one. cmake -DEMULATOR=... -DBINARY=... -DOUTPUT=.../actorcrawl.1.gz -P ManPage.cmake
get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
string(REGEX REPLACE "\\.gz$" "" page "${OUTPUT}")
execute_process(COMMAND ${EMULATOR} "${BINARY}" --man-page OUTPUT_FILE "${page}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "actorcrawl --man-page failed: ${status}")
endif()
# -n: no name or time stamp in the header, so the same page gives the same bytes.
execute_process(COMMAND gzip -9nf "${page}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "gzip ${page} failed: ${status}")
endif()
