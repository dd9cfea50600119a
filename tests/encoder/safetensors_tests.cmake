# Suites of the safetensors reader and writer, config.json and the checkpoint folder (issue 4).
# include()d by CMakeLists.txt in this folder, so source paths are relative to it.
linkscope_add_test(test_safetensors SOURCES test_safetensors.cpp LABELS unit)
linkscope_add_test(test_bert_config SOURCES test_bert_config.cpp LABELS unit)
linkscope_add_test(test_checkpoint_files SOURCES test_checkpoint_files.cpp LABELS unit)
