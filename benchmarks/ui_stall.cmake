# The GUI's event-loop stalls while a project loads and indexes and while a training runs
# (the GUI thread's stall budget), and with --team-curators on a team project while simulated
# curators write (a PostgreSQL server of its own, tests/common/postgres_server.h, and
# linkscope-cli simulate-curation); needs the Qt Widgets half. Run with QT_QPA_PLATFORM=offscreen.
if(TARGET linkscope_ui)
  linkscope_add_benchmark(ui_stall ui_stall.cpp)
  target_link_libraries(ui_stall PRIVATE linkscope::ui Qt6::Widgets nlohmann_json::nlohmann_json)
  target_include_directories(ui_stall PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
  target_compile_definitions(ui_stall PRIVATE
      LINKSCOPE_DEFAULT_DATA_DIR="${LINKSCOPE_DEFAULT_DATA_DIR}"
      LINKSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      LINKSCOPE_CLI_PATH="$<TARGET_FILE:linkscope-cli>")
  add_dependencies(ui_stall linkscope-cli)
endif()
