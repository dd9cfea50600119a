# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE, cmake/LinkscopePackaging.cmake).
# The tarball ships stripped binaries; the DEB generator strips its own while it moves the debug
# symbols into the -dbgsym package, which CPACK_STRIP_FILES would empty beforehand.
if(CPACK_GENERATOR STREQUAL "TGZ")
  set(CPACK_STRIP_FILES ON)
endif()
