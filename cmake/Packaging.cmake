# What `cmake --install` puts where, and the Debian package CPack makes of it
# (scripts/package.sh amd64|arm64 drives both). Paths are Debian's: the
# binary in bin/, the plugin helper module where the binary looks for it
# (../share/actorcrawl/plugins beside bin/), the manual page, the bash
# completion, the systemd unit, the documentation and examples.
include(GNUInstallDirs)

# actorcrawl(1) from the binary's own --help text (core/config/man_page.h).
set(ACTORCRAWL_MAN_PAGE ${CMAKE_BINARY_DIR}/man/actorcrawl.1.gz)
add_custom_command(OUTPUT ${ACTORCRAWL_MAN_PAGE}
  COMMAND ${CMAKE_COMMAND} "-DEMULATOR=${CMAKE_CROSSCOMPILING_EMULATOR}" -DBINARY=$<TARGET_FILE:actorcrawl>
          -DOUTPUT=${ACTORCRAWL_MAN_PAGE} -P ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
  DEPENDS actorcrawl ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
  COMMENT "Writing the manual page actorcrawl(1)"
  VERBATIM)
add_custom_target(man_page ALL DEPENDS ${ACTORCRAWL_MAN_PAGE})

# Debian's packages keep their changelog gzipped beside the copyright.
set(ACTORCRAWL_CHANGELOG ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
add_custom_command(OUTPUT ${ACTORCRAWL_CHANGELOG}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/packaging
  COMMAND sh -c "gzip -9nc < \"$1\" > \"$2\"" gzip ${PROJECT_SOURCE_DIR}/packaging/changelog ${ACTORCRAWL_CHANGELOG}
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog
  VERBATIM)
add_custom_target(changelog ALL DEPENDS ${ACTORCRAWL_CHANGELOG})

install(TARGETS actorcrawl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES plugins/actorcrawl_plugin.py DESTINATION ${CMAKE_INSTALL_DATADIR}/actorcrawl/plugins)
install(PROGRAMS plugins/jsonld.py plugins/wordcount.py DESTINATION ${CMAKE_INSTALL_DATADIR}/actorcrawl/plugins)
install(FILES ${ACTORCRAWL_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES packaging/actorcrawl.bash-completion DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME actorcrawl)
set(ACTORCRAWL_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/actorcrawl)
install(FILES README.md packaging/copyright ${ACTORCRAWL_CHANGELOG} DESTINATION ${ACTORCRAWL_DOC_DIR})
install(DIRECTORY docs/ DESTINATION ${ACTORCRAWL_DOC_DIR}/docs FILES_MATCHING PATTERN "*.md")
install(DIRECTORY configs/ DESTINATION ${ACTORCRAWL_DOC_DIR}/examples/configs FILES_MATCHING PATTERN "*.yaml")
# The example plugins live where the binary finds their helper module; the
# documentation's examples point there.
install(CODE "file(MAKE_DIRECTORY \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${ACTORCRAWL_DOC_DIR}/examples\")
  file(CREATE_LINK ../../../actorcrawl/plugins
       \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${ACTORCRAWL_DOC_DIR}/examples/plugins\" SYMBOLIC)")

# The service: a systemd unit and its settings file, at Debian's places
# (absolute, so a /usr/local install does not put them where systemd never
# looks; ACTORCRAWL_INSTALL_SERVICE=OFF leaves them out).
option(ACTORCRAWL_INSTALL_SERVICE "Install the systemd unit and /etc/default/actorcrawl" ON)
if(ACTORCRAWL_INSTALL_SERVICE)
  install(FILES packaging/actorcrawl.service DESTINATION /lib/systemd/system)
  install(FILES packaging/default DESTINATION /etc/default RENAME actorcrawl)
endif()

# ---------------------------------------------------------------- the .deb
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME actorcrawl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "actorcrawl developers <actorcrawl@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "polite web crawler on the C++ Actor Framework")
# The synopsis is the summary above; this is the extended description.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "actorcrawl crawls sites and domain graphs at the pace each host allows,
never requests a page twice, and resumes where it stopped. Its actors
(Frontier, HostSelector, FetchWorkers, Processor, Storage, DeadLetter) run in
one process, across processes and machines, or behind an HTTP crawl
service with a dashboard; a crawl lands in one SQLite database.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# A cross build's architecture is its target's, not the build machine's.
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
elseif(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE armhf)
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# amd64 from dpkg-shlibdeps; a cross build is given its list by
# scripts/package.sh (ACTORCRAWL_DEB_DEPENDS), which checks it.
if(ACTORCRAWL_DEB_DEPENDS)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${ACTORCRAWL_DEB_DEPENDS}")
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, sqlite3")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/postinst ${PROJECT_SOURCE_DIR}/packaging/prerm
    ${PROJECT_SOURCE_DIR}/packaging/postrm ${PROJECT_SOURCE_DIR}/packaging/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
include(CPack)
