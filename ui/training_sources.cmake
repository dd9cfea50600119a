# The training dock: a worker that runs core's trainer off the GUI thread, and the
# panel with its presets, progress and live Qt Charts curves. Included from ui/CMakeLists.txt.
# Built with or without LibTorch: without it the panel says that training needs LibTorch.
set(LINKSCOPE_UI_TRAINING_SOURCES
    checkpoint_check_view.cpp
    checkpoint_check_view.h
    pretrained_encoders.cpp
    pretrained_encoders.h
    training_charts.cpp
    training_charts.h
    training_panel.cpp
    training_panel.h
    training_run_summary.cpp
    training_run_summary.h
    training_worker.cpp
    training_worker.h)
target_sources(linkscope_ui PRIVATE ${LINKSCOPE_UI_TRAINING_SOURCES})
target_link_libraries(linkscope_ui PUBLIC Qt6::Charts)

# Where the panel finds the method presets (models/*.json), as `linkscope-cli train` does: the
# source tree for a build that is not installed, and the installed share folder.
include(GNUInstallDirs)
set_property(SOURCE training_panel.cpp APPEND PROPERTY COMPILE_DEFINITIONS
    LINKSCOPE_SOURCE_MODELS_DIR="${PROJECT_SOURCE_DIR}/models"
    LINKSCOPE_INSTALL_MODELS_DIR="${CMAKE_INSTALL_FULL_DATADIR}/linkscope/models")
