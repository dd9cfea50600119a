# A project on a PostgreSQL server in the window: File > Open Team Project…, the other
# curators' decisions live (LISTEN/NOTIFY watched on the event loop), and the connection's
# state in the status bar (read-only while it is lost, reconnecting by itself).
target_sources(linkscope_ui PRIVATE
    team_connection_dialog.cpp
    team_connection_dialog.h
    team_live_updates.cpp
    team_live_updates.h
    team_project_open.cpp
    team_project_open.h
    team_status_label.cpp
    team_status_label.h)
