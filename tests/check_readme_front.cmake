# The README's first screen (its introduction, before the first "## " section) tells a reader of
# the English book, in plain words, to add --bernoulli default: the default (mkl) reproduces the
# Colab notebooks the project began from, and a student comparing ch04_gpt's logits with
# ch04.ipynb's would otherwise find them unlike (issue 52).
file(READ ${SOURCE_DIR}/README.md text)
string(FIND "${text}" "\n## " end)
string(SUBSTRING "${text}" 0 ${end} intro)
if(NOT intro MATCHES "Reading the English book\\? Add `--bernoulli default`")
  message(FATAL_ERROR "README.md's introduction does not tell an English-book reader to add `--bernoulli default`:\n${intro}")
endif()
