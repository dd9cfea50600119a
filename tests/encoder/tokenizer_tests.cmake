# Suites of the BERT tokenizer and the WordPiece vocabulary builder (issue 4).
# include()d by CMakeLists.txt in this folder, so source paths are relative to it.
linkscope_add_test(test_tokenizer SOURCES test_tokenizer.cpp LABELS unit)
linkscope_add_test(test_vocabulary_builder SOURCES test_vocabulary_builder.cpp LABELS unit)
linkscope_add_test(test_tokenizer_data SOURCES test_tokenizer_data.cpp LABELS data)
