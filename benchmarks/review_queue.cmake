# The review queue and the reach preview on NCBI Disease + MEDIC; needs the Qt
# Widgets half. Run with QT_QPA_PLATFORM=offscreen.
if(TARGET linkscope_ui)
  linkscope_add_benchmark(review_queue review_queue.cpp)
  target_link_libraries(review_queue PRIVATE linkscope::ui Qt6::Widgets nlohmann_json::nlohmann_json)
  target_compile_definitions(review_queue PRIVATE LINKSCOPE_DEFAULT_DATA_DIR="${LINKSCOPE_DEFAULT_DATA_DIR}")
endif()
