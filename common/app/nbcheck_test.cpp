#include "llmfs/app/nbcheck.hpp"

#include <stdexcept>

#include <catch2/catch.hpp>

using namespace llmfs;

namespace {

// What a chapter program prints under --annotate: two cells of 3.3.1.
constexpr const char* kAnnotated =
    "\n## 3.3.1 A simple self-attention mechanism\n"
    "# C++: chapters/ch03/naive_attention.cpp:28\n"
    ">>> query = inputs[1]  # 2nd input token is the query\n"
    ">>> print(query)\n"
    "tensor([0.5500, 0.8700, 0.6600])\n"
    "# Note: a remark for the reader\n"
    "# C++: chapters/ch03/naive_attention.cpp:40\n"
    ">>> mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=2)\n"
    ">>> print(mha(batch).shape)\n"
    "torch.Size([2, 6, 4])\n"
    "\n"
    "tensor([[[1.]]])\n";

}  // namespace

TEST_CASE("logical_lines: comments, spacing and bracket continuations do not count") {
    CHECK(logical_lines("x = f(a,  b)  # a comment\n\n# only a comment\nprint( x )\n") ==
          std::vector<std::string>{"x=f(a,b)", "x"});
    CHECK(logical_lines("mha = Wrapper(\n    d_in, d_out,  # two\n    0.0\n)\n") == std::vector<std::string>{"mha=Wrapper(d_in,d_out,0.0)"});
    CHECK(logical_lines("print(\"# not a comment\")") == std::vector<std::string>{"\"#notacomment\""});
}

TEST_CASE("logical_lines: print of one expression is that expression, as a notebook shows it") {
    CHECK(logical_lines("print(attn_scores_2)\nattn_scores_2\n") == std::vector<std::string>{"attn_scores_2", "attn_scores_2"});
    CHECK(logical_lines("print(f(a, b)[0])\n") == std::vector<std::string>{"f(a,b)[0]"});
    CHECK(logical_lines("print(\"Mean:\", mean)\n") == std::vector<std::string>{"print(\"Mean:\",mean)"});
    CHECK(logical_lines("print(\"a, b\")\n") == std::vector<std::string>{"\"a,b\""});
    CHECK(logical_lines("print(a)(b)\n") == std::vector<std::string>{"print(a)(b)"});
}

TEST_CASE("parse_annotated: one program cell per '# C++:' line, with its section, code and output") {
    const auto cells = parse_annotated("ch03_naive_attention", kAnnotated);
    REQUIRE(cells.size() == 2);
    CHECK(cells[0].section == "3.3.1 A simple self-attention mechanism");
    CHECK(cells[0].cpp == "chapters/ch03/naive_attention.cpp:28");
    CHECK(cells[0].code == "query = inputs[1]  # 2nd input token is the query\nprint(query)\n");
    CHECK(cells[0].output == "tensor([0.5500, 0.8700, 0.6600])\n");
    CHECK(cells[1].output == "torch.Size([2, 6, 4])\n\ntensor([[[1.]]])\n");  // blank lines inside output stay
}

TEST_CASE("map_cell: by code, whatever the comments and line breaks, and nothing for unrelated code") {
    const auto cells = parse_annotated("ch03_naive_attention", kAnnotated);
    NotebookCell translated;
    translated.code = "query = inputs[1] # 두 번째 토큰\nprint(query)";
    CHECK(map_cell(translated, cells) == std::optional<std::size_t>(0));

    NotebookCell wrapped;
    wrapped.code = "mha = MultiHeadAttentionWrapper(\n    d_in, d_out, context_length, 0.0, num_heads=2\n)\nprint(mha(batch).shape)";
    CHECK(map_cell(wrapped, cells) == std::optional<std::size_t>(1));

    NotebookCell other;
    other.code = "torch.manual_seed(123)\nprint(query)";  // shares one of the two lines: not more than half
    CHECK_FALSE(map_cell(other, cells).has_value());
}

TEST_CASE("read_notebook: .ipynb cells, stdout and text results as output, stderr left out") {
    const auto cells = read_notebook(R"json({"cells": [
        {"cell_type": "markdown", "source": "# Title"},
        {"cell_type": "code", "source": ["x = 1\n", "x"], "outputs": [
            {"output_type": "stream", "name": "stderr", "text": "a warning\n"},
            {"output_type": "stream", "name": "stdout", "text": ["a\n", "b\n"]},
            {"output_type": "execute_result", "data": {"text/plain": ["tensor(1.)"]}}]},
        {"cell_type": "code", "source": "plt.show()", "outputs": [
            {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "<Figure>"}}]}
    ]})json");
    REQUIRE(cells.size() == 2);
    CHECK(cells[0].index == 1);  // numbered among code cells
    CHECK(cells[0].code == "x = 1\nx");
    CHECK(cells[0].output == "a\nb\ntensor(1.)\n");
    CHECK(cells[1].figure);
    CHECK(cells[1].output.empty());
}

TEST_CASE("read_notebook: bad input is std::invalid_argument") {
    CHECK_THROWS_AS(read_notebook("{\"cells\": [ {"), std::invalid_argument);
    CHECK_THROWS_AS(read_notebook("{\"nbformat\": 4}"), std::invalid_argument);
    CHECK_THROWS_AS(read_notebook("plain prose, no cells"), std::invalid_argument);
}

TEST_CASE("check_notebook: a text export's output is cut out after the code, up to the markdown") {
    const auto program = parse_annotated("ch03_naive_attention", kAnnotated);
    const auto cells = read_notebook(
        "# Title\n\nIn [1]:\nquery = inputs[1]\n\nprint(query)\n\ntensor([0.5500, 0.8700, 0.6600])\n\n"
        "Some markdown after it.\n\nIn [None]:\nmha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, "
        "num_heads=2)\nprint(mha(batch).shape)\n\ntorch.Size([2, 6, 4])\n\ntensor([[[2.]]])\n\n\nMore markdown.\n");
    REQUIRE(cells.size() == 2);
    const auto results = check_notebook(cells, program);
    REQUIRE(results.size() == 2);
    CHECK(results[0].status == CellStatus::match);
    CHECK(results[1].status == CellStatus::differ);  // 2. against 1.: an integer-valued float
    CHECK(results[1].diff.find("-tensor([[[2.]]])\n+tensor([[[1.]]])\n") != std::string::npos);
    CHECK(summary_line(summarize(results)) == "1/2 covered output cells match, 0 close, 1 differ (0 not covered)");
}

TEST_CASE("check_notebook: version prints, figures and unknown cells are not covered, with a reason") {
    const auto program = parse_annotated("ch03_naive_attention", kAnnotated);
    NotebookCell version{1, "print(\"torch version:\", version(\"torch\"))", "torch version: 2.6.0\n"};
    NotebookCell figure{2, "plt.plot(x, y)", "", true};
    NotebookCell unknown{3, "print(42)", "42\n"};
    NotebookCell silent{4, "x = 1", ""};  // no output: not listed
    const auto results = check_notebook({version, figure, unknown, silent}, program);
    REQUIRE(results.size() == 3);
    CHECK(results[0].reason == "version print");
    CHECK(results[1].reason == "figure");
    CHECK(results[2].reason == "a cell the suite does not reproduce");
    for (const auto& r : results) CHECK(r.status == CellStatus::not_covered);
}
