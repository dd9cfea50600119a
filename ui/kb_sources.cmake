# The knowledge-base dock (entity search, entity page) and the raw file view, included from
# ui/CMakeLists.txt. Where CMake found KDE's KSyntaxHighlighting (KF6; bookworm has none), the
# raw view uses it with resources/syntax/pubtator.xml, compiled in as a resource under the path
# where every KSyntaxHighlighting::Repository looks for third-party definitions; elsewhere it
# uses its own QSyntaxHighlighter (pubtator_highlighter.cpp).
set(LINKSCOPE_UI_KB_SOURCES
    entity_page.cpp
    entity_page.h
    entity_search_box.cpp
    entity_search_box.h
    entity_search_model.cpp
    entity_search_model.h
    knowledge_base_dock.cpp
    knowledge_base_dock.h
    pubtator_highlighter.cpp
    pubtator_highlighter.h
    raw_file_view.cpp
    raw_file_view.h)
target_sources(linkscope_ui PRIVATE ${LINKSCOPE_UI_KB_SOURCES})

set(_linkscope_kf6_syntax_target "")
foreach(_candidate KF6::SyntaxHighlighting KF6::KSyntaxHighlighting)
  if(NOT _linkscope_kf6_syntax_target AND TARGET ${_candidate})
    set(_linkscope_kf6_syntax_target ${_candidate})
  endif()
endforeach()
if(_linkscope_kf6_syntax_target)
  message(STATUS "Linkscope: raw file view highlighted by KSyntaxHighlighting (${_linkscope_kf6_syntax_target})")
  target_link_libraries(linkscope_ui PRIVATE ${_linkscope_kf6_syntax_target})
  target_compile_definitions(linkscope_ui PRIVATE LINKSCOPE_HAVE_KF6_SYNTAX=1)
  qt_add_resources(linkscope_ui linkscope_pubtator_syntax
      PREFIX "/org.kde.syntax-highlighting/syntax-addons"
      BASE "${PROJECT_SOURCE_DIR}/resources/syntax"
      FILES "${PROJECT_SOURCE_DIR}/resources/syntax/pubtator.xml")
else()
  message(STATUS "Linkscope: KF6SyntaxHighlighting not found; the raw file view uses its own PubTator highlighter")
endif()
