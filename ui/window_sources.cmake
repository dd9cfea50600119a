# The main window's parts, included from ui/CMakeLists.txt: the Documents dock, the curation
# flow, the message log, the document pane, the open project the docks follow, the status
# line, the export job and the File menu's actions.
target_sources(linkscope_ui PRIVATE
    curation_controller.cpp
    curation_controller.h
    document_pane.cpp
    document_pane.h
    documents_dock.cpp
    documents_dock.h
    export_job.cpp
    export_job.h
    message_log.cpp
    message_log.h
    project_context.cpp
    project_context.h
    project_file_actions.cpp
    project_file_actions.h
    status_line.cpp
    status_line.h)
