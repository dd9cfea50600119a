# Compiler warnings and sanitizers for every target of the project.
add_library(linkscope_options INTERFACE)
add_library(linkscope::options ALIAS linkscope_options)
target_compile_options(linkscope_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local
                       -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual)
# Qt's `slots`, `signals` and `emit` macros collide with names in LibTorch headers.
target_compile_definitions(linkscope_options INTERFACE QT_NO_KEYWORDS)

if(LINKSCOPE_SANITIZE)
  target_compile_options(linkscope_options INTERFACE
      -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(linkscope_options INTERFACE -fsanitize=address,undefined)
endif()
