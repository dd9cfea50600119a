# The GUI's way to the dense engine (LibTorch): the interface (dense_engine.h, run_ranker.h) and
# its loader, always built into linkscope_ui; the implementation in ui/dense/ is the module
# liblinkscope_ui_dense.so, built wherever the dense engine is and loaded at run time (on a worker,
# when a run is linked or evaluated or a training starts), so that the window opens without
# LibTorch. It lives in lib/linkscope/ beside bin/, in the build tree as once installed.
# Included from ui/CMakeLists.txt.
target_sources(linkscope_ui PRIVATE
    dense_engine.h
    dense_engine_loader.cpp
    dense_engine_loader.h
    project_eval_data.h
    run_ranker.h
    training_request.h)
target_link_libraries(linkscope_ui PRIVATE ${CMAKE_DL_LIBS})
set(LINKSCOPE_UI_DENSE_SOURCES
    dense/dense_engine_module.cpp
    dense/model_run_ranker.cpp
    dense/model_run_ranker.h
    dense/run_evaluator.cpp
    dense/run_evaluator.h
    dense/training_job.cpp
    dense/training_job.h)
if(TARGET linkscope_dense)
  add_library(linkscope_ui_dense MODULE ${LINKSCOPE_UI_DENSE_SOURCES})
  # The ui headers it implements (plain structs and abstract classes: nothing of linkscope_ui is
  # linked in) and Qt Core for their QStrings.
  target_include_directories(linkscope_ui_dense PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(linkscope_ui_dense PRIVATE linkscope::dense linkscope::options Qt6::Core)
  set_target_properties(linkscope_ui_dense PROPERTIES
      AUTOMOC OFF
      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib/linkscope
      CXX_VISIBILITY_PRESET hidden
      VISIBILITY_INLINES_HIDDEN ON
      INSTALL_RPATH "$ORIGIN")
  # Whatever builds the GUI or a test of it builds the module too.
  add_dependencies(linkscope_ui linkscope_ui_dense)
  include(GNUInstallDirs)
  install(TARGETS linkscope_ui_dense LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/linkscope)
elseif(LINKSCOPE_HAVE_TORCH)
  # The dense engine inside linkscope_core (no separate library): linked in.
  target_sources(linkscope_ui PRIVATE ${LINKSCOPE_UI_DENSE_SOURCES})
  target_compile_definitions(linkscope_ui PRIVATE LINKSCOPE_UI_DENSE_LINKED=1)
endif()
