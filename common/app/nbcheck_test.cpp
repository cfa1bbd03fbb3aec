#include "llmfs/app/nbcheck.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

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

TEST_CASE("set_aside_other_chapters: another chapter's cell with changed code and output is not covered") {
    const auto program = parse_annotated("ch03_naive_attention", kAnnotated);
    NotebookCell same{1, "query = inputs[1]\nprint(query)", "tensor([0.5500, 0.8700, 0.6600])\n"};
    NotebookCell changed{2, "mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads=2)\nmha.double()\nprint(mha(batch).shape)",
                         "torch.Size([2, 6, 4])\n\ntensor([[[1.]]], dtype=torch.float64)\n"};
    auto results = check_notebook({same, changed}, program);
    REQUIRE(results.size() == 2);
    REQUIRE(results[1].status == CellStatus::differ);
    REQUIRE(!results[1].code_change.empty());
    auto own = results;
    set_aside_other_chapters(own, program, {"ch03_naive_attention"});  // the notebook's own chapter: kept
    CHECK(own[1].status == CellStatus::differ);
    set_aside_other_chapters(results, program, {"ch07_instruction_data"});
    CHECK(results[0].status == CellStatus::match);  // the same code and output: still checked
    CHECK(results[1].status == CellStatus::not_covered);
    CHECK(results[1].reason == "another chapter's code (ch03_naive_attention) on this notebook's changes (mha.double())");
}

TEST_CASE("check_notebook: chapter 2's print of torch.__version__ is a version print too") {
    const auto program = parse_annotated("ch03_naive_attention", kAnnotated);
    NotebookCell version{35, "import torch\nprint(\"PyTorch version:\", torch.__version__)", "PyTorch version: 2.5.1\n"};
    const auto results = check_notebook({version}, program);
    REQUIRE(results.size() == 1);
    CHECK(results[0].reason == "version print");
    CHECK(results[0].status == CellStatus::not_covered);
}

// ---- fuzzing (test_support.hpp): mutated notebooks are read and checked, or refused with a message

namespace {

std::string source_file(const std::string& relative) {
    std::ifstream in(std::string(LLMFS_SOURCE_DIR) + "/" + relative, std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Program cells reproducing `notebook` cell for cell: checking a mutated copy against them runs
// the mapping, the comparison and the diffs on every cell the mutation left recognisable.
std::vector<ProgramCell> program_cells_of(const std::string& notebook) {
    std::vector<ProgramCell> cells;
    for (const NotebookCell& c : read_notebook(notebook)) {
        if (!c.output.empty()) cells.push_back({"program", "1.1 section", "chapters/x.cpp:" + std::to_string(c.index), c.code, c.output});
    }
    return cells;
}

// Checks `text` as llmfs-nbcheck does, and that its report adds up.
void read_and_check(const std::string& text, const std::vector<ProgramCell>& programs) {
    const auto notebook = read_notebook(text);
    const auto results = check_notebook(notebook, programs);
    const Summary s = summarize(results);
    CHECK(s.covered() + s.not_covered == results.size());
    for (const CellResult& r : results) CHECK((r.program_cell.has_value() == (r.status != CellStatus::not_covered)));
}

nlohmann::json random_value(testing::Mutator& m) {
    switch (m.below(8)) {
        case 0: return nullptr;
        case 1: return m.chance(0.5);
        case 2: return static_cast<double>(m.below(1000)) - 500.5;
        case 3: return static_cast<std::int64_t>(m.below(1u << 31)) * (m.chance(0.5) ? -1 : 1);
        case 4: return std::string("text ") + m.nasty() + m.nasty();
        case 5: return nlohmann::json::array({1, "two", nullptr});
        case 6: return nlohmann::json::object({{"text/plain", 3}, {"name", nullptr}});
        default: return std::string(m.below(200000), 'x');
    }
}

// A structural mutation: some value of the notebook's JSON replaced by one of another type, a
// key removed, or a value wrapped in a list.
std::string mutate_structure(const std::string& seed, testing::Mutator& m) {
    nlohmann::json j = nlohmann::json::parse(seed);
    const nlohmann::json flat = j.flatten();
    auto it = flat.begin();
    std::advance(it, static_cast<long>(m.below(flat.size())));
    nlohmann::json::json_pointer ptr(it.key());
    for (std::size_t up = m.below(4); up > 0 && !ptr.empty(); --up) ptr = ptr.parent_pointer();
    if (ptr.empty()) return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    switch (m.below(3)) {
        case 0: j[ptr] = random_value(m); break;
        case 1: {
            const auto parent = ptr.parent_pointer();
            if (j[parent].is_object()) j[parent].erase(ptr.back());
            break;
        }
        default: j[ptr] = nlohmann::json::array({j[ptr]}); break;
    }
    return j.dump(m.chance(0.5) ? 1 : -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A cell's source replaced by lists nested `depth` deep (200,000 overflowed the stack once).
std::string nest(const std::string& seed, std::size_t depth, testing::Mutator& m) {
    nlohmann::json j = nlohmann::json::parse(seed);
    auto& cells = j["cells"];
    cells[m.below(cells.size())]["source"] = "@@DEEP@@";
    std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const std::string deep = std::string(depth, '[') + "\"x\"" + std::string(depth, ']');
    return text.replace(text.find("\"@@DEEP@@\""), 10, deep);
}

// Many cells, or one huge one: sizes a real notebook never has.
std::string resize(const std::string& seed, testing::Mutator& m) {
    nlohmann::json j = nlohmann::json::parse(seed);
    auto& cells = j["cells"];
    if (m.chance(0.5)) {
        const nlohmann::json cell = cells[m.below(cells.size())];
        const std::size_t copies = 1000 + m.below(20000);
        for (std::size_t i = 0; i < copies; ++i) cells.push_back(cell);
    } else {
        cells[m.below(cells.size())]["source"] = std::string(1 + m.below(2000000), "x\n("[m.below(3)]);
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

TEST_CASE("fuzz: mutated .ipynb notebooks (bytes, types, depth, sizes) are checked or refused with a message", "[fuzz][long]") {
    const std::vector<std::string> seeds = {source_file("tests/nbcheck/ch03_zh.ipynb"), source_file("tests/nbcheck/ch04_book.ipynb")};
    const std::vector<std::vector<ProgramCell>> programs = {program_cells_of(seeds[0]), program_cells_of(seeds[1])};
    const std::size_t depths[] = {2, 10, 63, 64, 65, 1000, 200000};
    testing::Mutator m(20261123);
    constexpr int kCases = 2000;
    for (int i = 0; i < kCases; ++i) {
        const std::size_t s = m.below(seeds.size());
        std::string input;
        switch (i % 8) {
            case 0: case 1: case 2: input = m.bytes(seeds[s]); break;
            case 3: case 4: case 5: input = mutate_structure(seeds[s], m); break;
            case 6: input = nest(seeds[s], depths[m.below(std::size(depths))], m); break;
            default: input = i % 32 == 7 ? resize(seeds[s], m) : mutate_structure(m.bytes(seeds[s]).size() % 2 ? seeds[s] : seeds[1 - s], m); break;
        }
        testing::fuzz_case("ipynb-" + std::to_string(i), input, [&] { read_and_check(input, programs[s]); });
    }
}

TEST_CASE("fuzz: mutated text exports (bytes, long lines, lines moved) are checked or refused with a message", "[fuzz]") {
    const std::vector<std::string> seeds = {source_file("tests/nbcheck/ch03_ja_export.txt"), source_file("tests/nbcheck/ch03_ko_export.txt")};
    const std::vector<ProgramCell> programs = program_cells_of(source_file("tests/nbcheck/ch03_zh.ipynb"));
    testing::Mutator m(1123);
    constexpr int kCases = 2000;
    for (int i = 0; i < kCases; ++i) {
        std::string input = seeds[m.below(seeds.size())];
        const std::size_t at = input.find('\n', m.below(input.size())) + 1;
        switch (i % 4) {
            case 0: input = m.bytes(input); break;
            case 1: input.insert(at % (input.size() + 1), "In [" + std::string(m.below(60000), "x]["[m.below(3)]) + "\n"); break;
            case 2: {  // a block of lines copied elsewhere (cells out of order, duplicated)
                const std::size_t from = m.below(input.size()), length = m.below(5000);
                input.insert(at % (input.size() + 1), input.substr(from, length));
                break;
            }
            default: {  // blank lines (the cell separators) removed or doubled
                std::string edited;
                const bool remove = m.chance(0.5);
                for (std::size_t k = 0; k < input.size(); ++k) {
                    const bool blank = input[k] == '\n' && k + 1 < input.size() && input[k + 1] == '\n';
                    if (blank && remove && m.chance(0.5)) continue;
                    edited += input[k];
                    if (blank && !remove && m.chance(0.3)) edited += '\n';
                }
                input = edited;
            }
        }
        testing::fuzz_case("text-export-" + std::to_string(i), input, [&] { read_and_check(input, programs); });
    }
}

TEST_CASE("bad input: each reproducer of the hostile-input issue is refused with a message") {
    const std::string zh = source_file("tests/nbcheck/ch03_zh.ipynb");
    // A text export line "In [" and 50,000 characters: a regex once recursed per character.
    CHECK_THROWS_WITH(read_notebook("In [" + std::string(50000, 'x') + "\nprint(1)\n"), Catch::Contains("not a notebook"));
    CHECK(read_notebook("In [" + std::string(50000, 'x') + "]:\nprint(1)\n").size() == 1);
    CHECK(read_notebook("In [1]:\nprint(1)\n\n1\n").size() == 1);
    // 200,000 levels of nesting in a cell's source: refused while parsing, not a stack overflow.
    testing::Mutator m(1);
    CHECK_THROWS_WITH(read_notebook(nest(zh, 200000, m)), Catch::Contains("nested more than 64 levels"));
    // Wrong JSON types: bad input naming the cell and the field, never a library's type_error.
    CHECK_THROWS_WITH(read_notebook(R"({"cells":[{"cell_type":1}]})"),
                      Catch::Contains("cell 1") && Catch::Contains("\"cell_type\" must be a string, not a number"));
    CHECK_THROWS_WITH(read_notebook(R"({"cells":[{"cell_type":"code","source":"x","outputs":[5]}]})"),
                      Catch::Contains("cell 1 (code cell 1), output 1 is a number"));
    CHECK_THROWS_WITH(read_notebook(R"({"cells":[{"cell_type":"code","source":"x","outputs":[{"output_type":"stream","name":3,"text":"a"}]}]})"),
                      Catch::Contains("\"name\" must be a string, not a number"));
    CHECK_THROWS_WITH(read_notebook(R"({"cells":[{"cell_type":"code","source":"x","outputs":[{"output_type":"stream","name":"stdout","text":7}]}]})"),
                      Catch::Contains("\"text\" must be a string or a list of strings, not a number"));
    CHECK_THROWS_WITH(read_notebook(R"({"cells":[{"cell_type":"code","source":"x","outputs":[{"output_type":"execute_result","data":{"text/plain":[1]}}]}]})"),
                      Catch::Contains("\"text/plain\" must be a string or a list of strings, not a number"));
    CHECK_THROWS_WITH(read_notebook(R"({"cells":[{"cell_type":"code","source":{"a":1}}]})"),
                      Catch::Contains("\"source\" must be a string or a list of strings, not an object"));
    // Escapes: a lone surrogate is broken JSON, a \u0000 is text.
    CHECK_THROWS_WITH(read_notebook(R"({"cells":[{"cell_type":"code","source":"\udc00"}]})"), Catch::Contains("not valid notebook JSON"));
    CHECK(read_notebook(R"({"cells":[{"cell_type":"code","source":"a\u0000b"}]})").front().code == std::string("a\0b", 3));
}

TEST_CASE("without_device: a GPU's or a Mac's tensors and Device line as the CPU prints them") {
    std::string device;
    CHECK(without_device("tensor([1, 2,\n        3],\n       device='mps:0')\n", &device) == "tensor([1, 2,\n        3])\n");
    CHECK(device == "mps");
    CHECK(without_device("Device: cuda\n", &device) == "Device: cpu\n");
    CHECK(device == "cuda");
    CHECK(without_device("tensor([1.], device='cuda:0')") == "tensor([1.])");
    CHECK(without_device("Device: cpu\ntensor([1])\n") == "Device: cpu\ntensor([1])\n");
    CHECK(without_device("My Device: mps\n") == "My Device: mps\n");
}

TEST_CASE("without_timing: the training cells' 'Training completed in X minutes.' lines left out, nothing else") {
    CHECK(without_timing("Ep 1 (Step 000000): Train loss 3.820\nTraining completed in 2.16 minutes.\n") ==
          "Ep 1 (Step 000000): Train loss 3.820\n");
    CHECK(without_timing("Training completed in 0.00 minutes.") == "");
    CHECK(without_timing("Training completed in many minutes.\n") == "Training completed in many minutes.\n");
    CHECK(without_timing("a\nTraining completed in 1.5 minutes. Done\nb") == "a\nTraining completed in 1.5 minutes. Done\nb");
    CHECK(without_timing("") == "");
}
