# Third-party libraries, all from Debian bookworm packages (see packaging/install-deps.sh).
find_package(ZLIB REQUIRED)
find_package(ICU REQUIRED COMPONENTS uc i18n)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
# The project file is SQLite (through SQLiteCpp); BioC export and import read XML with pugixml.
find_package(SQLite3 REQUIRED)
find_package(SQLiteCpp REQUIRED)
find_package(pugixml REQUIRED)

# LibTorch and FAISS carry the dense half of the engine (encoders, vector indexes). They are
# looked up here so that every later module can rely on them; LINKSCOPE_WITH_TORCH=OFF builds
# the sparse engine alone on machines without them. OpenMP must be found before faiss: its
# exported targets name OpenMP::OpenMP_CXX.
option(LINKSCOPE_WITH_TORCH "Build the dense engine with LibTorch and FAISS" ON)
if(LINKSCOPE_WITH_TORCH)
  find_package(Torch QUIET)
  find_package(OpenMP)
  find_package(faiss QUIET)
  if(Torch_FOUND AND faiss_FOUND)
    set(LINKSCOPE_HAVE_TORCH ON)
    message(STATUS "Linkscope: LibTorch ${Torch_VERSION} and FAISS found")
  else()
    message(WARNING "Linkscope: LibTorch or FAISS not found; the dense engine is disabled")
    set(LINKSCOPE_HAVE_TORCH OFF)
  endif()
endif()

set(LINKSCOPE_HAVE_QTTEST OFF)
if(LINKSCOPE_BUILD_TESTS OR LINKSCOPE_BUILD_UI)
  set(_qt_components Core Test)
  if(LINKSCOPE_BUILD_UI)
    list(APPEND _qt_components Gui Widgets Concurrent Sql Charts OpenGLWidgets Svg)
  endif()
  if(LINKSCOPE_BUILD_UI)
    find_package(Qt6 6.4 REQUIRED COMPONENTS ${_qt_components})
  else()
    find_package(Qt6 6.4 QUIET COMPONENTS Core Test)
  endif()
  if(TARGET Qt6::Test)
    set(LINKSCOPE_HAVE_QTTEST ON)
  endif()
endif()

if(LINKSCOPE_BUILD_UI)
  # KDE's syntax highlighter is not packaged for bookworm; use it where it exists.
  find_package(KF6SyntaxHighlighting QUIET)
endif()
