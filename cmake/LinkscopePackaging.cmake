# Install rules and CPack (Debian package and tarball).
include(GNUInstallDirs)
install(TARGETS linkscope-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The engine's shared libraries (core/CMakeLists.txt), linkscope-cli-dense (app/cli/dense_engine.h)
# and the modules opened with dlopen live in the package's library folder, lib/linkscope/, not on
# the linker's path nor on PATH. The programs in bin/ find the libraries there by their RUNPATH,
# those in lib/linkscope/ beside themselves.
file(RELATIVE_PATH LINKSCOPE_LIBRARY_FROM_BIN "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}/linkscope")
set_target_properties(linkscope-cli PROPERTIES INSTALL_RPATH "$ORIGIN/${LINKSCOPE_LIBRARY_FROM_BIN}")
get_target_property(LINKSCOPE_CORE_TYPE linkscope_core TYPE)
if(LINKSCOPE_CORE_TYPE STREQUAL "SHARED_LIBRARY")
  install(TARGETS linkscope_core LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/linkscope)
endif()
if(TARGET linkscope_dense)
  install(TARGETS linkscope_dense LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/linkscope)
endif()
if(TARGET linkscope-cli-dense)
  install(TARGETS linkscope-cli-dense RUNTIME DESTINATION ${CMAKE_INSTALL_LIBDIR}/linkscope)
  set_target_properties(linkscope-cli-dense PROPERTIES INSTALL_RPATH "$ORIGIN")
endif()
if(TARGET linkscope)
  install(TARGETS linkscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set_target_properties(linkscope PROPERTIES INSTALL_RPATH "$ORIGIN/${LINKSCOPE_LIBRARY_FROM_BIN}")
  install(FILES packaging/org.linkscope.Linkscope.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES packaging/org.linkscope.Linkscope.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  # The icon the desktop entry names. SVG only: no SVG renderer is among the build dependencies
  # to make the PNG sizes from it, and the desktops that read hicolor draw its scalable/ icons.
  install(FILES resources/icons/org.linkscope.Linkscope.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
endif()
install(DIRECTORY models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/linkscope/models)
install(DIRECTORY resources/demo/ DESTINATION ${CMAKE_INSTALL_DATADIR}/linkscope/demo)

set(CPACK_PACKAGE_NAME linkscope)
set(CPACK_PACKAGE_VENDOR "Linkscope developers")
# No public address yet: the placeholder domain of PROJECT_HOMEPAGE_URL (CMakeLists.txt).
set(CPACK_PACKAGE_CONTACT "Linkscope developers <developers@linkscope.invalid>")
set(CPACK_PACKAGE_DESCRIPTION
    "Links disease, chemical and concept mentions in biomedical abstracts to knowledge bases such "
    "as MEDIC, MeSH and UMLS, shows why each candidate ranked where it did, and lets curators "
    "accept or correct links, retrain models and export clean annotations. Provides the linkscope "
    "desktop application and the linkscope-cli command-line engine.")
string(JOIN "" CPACK_PACKAGE_DESCRIPTION ${CPACK_PACKAGE_DESCRIPTION})
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${PROJECT_HOMEPAGE_URL}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Qt loads the SVG window icon through a plugin (dlopen), which dpkg-shlibdeps cannot see; CPack
# adds this to the dependencies it computes.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6svg6")
# Libraries the engine opens with dlopen on first use, which dpkg-shlibdeps cannot see either
# (libpq: core/project/libpq_loader.cpp).
get_property(LINKSCOPE_OPENED_LIBRARY_PACKAGES GLOBAL PROPERTY LINKSCOPE_OPENED_LIBRARY_PACKAGES)
foreach(package IN LISTS LINKSCOPE_OPENED_LIBRARY_PACKAGES)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", ${package}")
endforeach()
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Debian's file name (linkscope_0.1.0_amd64.deb), and linkscope-dbgsym_0.1.0_amd64.ddeb beside it.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The debug symbols go into the -dbgsym package and the binaries of the .deb are stripped
# (objcopy --only-keep-debug, --strip-unneeded, --add-gnu-debuglink). This needs binaries built
# with debug info: the default preset's RelWithDebInfo (-O2 -g) has it.
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
# CPACK_STRIP_FILES would strip before the DEB generator sees the files and so leave the dbgsym
# package empty (CPack's documentation: do not combine the two), so only the tarball uses it.
set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_CURRENT_LIST_DIR}/LinkscopeCPackOptions.cmake")
include(CPack)
