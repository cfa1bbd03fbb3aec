"""Reference output for llmfs-generate's sampling: the book's GPTModel + ch05 generate() under PyTorch.

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/generate_sampling_reference.py $BOOK \
        > data/golden/generate_sampling_cases.txt

(without BOOK: the usage line on stderr, exit status 2; see book_checkout.py)

For each case: torch.manual_seed(seed); model = GPTModel(cfg); model.eval(); then the book's
generate(model, idx, max_new_tokens, context_size, temperature, top_k, eos_id) from the prompt
(encoded with <|endoftext|> allowed). Its torch.multinomial draws continue the generator stream that
built the model, as llmfs-generate's do. generate() is read from the book's
ch05/01_main-chapter-code/gpt_generate.py (GPT_GENERATE below) and run as written; that file's other
imports (tensorflow, tiktoken) are not needed. PyTorch 1.13 here has no MKL: the default CPU
exponential_ kernel, the one llmfs reproduces (common/torch/sampling.hpp).

One block per case, the generate_cases.txt format with three more fields:

    case <TAB> model <TAB> seed <TAB> max_new_tokens <TAB> hex(UTF-8 prompt) <TAB> temperature <TAB> top_k <TAB> eos_id
    <ids separated by spaces>
    <decoded text, newlines escaped as \\n>

top_k and eos_id are "none" when not given. tests/generate_test.cpp runs llmfs-generate with
--temperature, --top-k and --eos-id for each case and compares.
"""
import ast
import copy
import pathlib
import sys

import book_checkout

GPT_GENERATE_IN_BOOK = "ch05/01_main-chapter-code/gpt_generate.py"
BOOK, extra = book_checkout.argument("generate_sampling_reference.py BOOK", GPT_GENERATE_IN_BOOK)
if extra:
    sys.stderr.write("usage: generate_sampling_reference.py BOOK\n")
    sys.exit(2)
GPT_GENERATE = pathlib.Path(BOOK, GPT_GENERATE_IN_BOOK)

import torch  # noqa: E402

import torch2x_print  # noqa: F401,E402  PyTorch 2.x's printing (see torch2x_print.py)

import ch04_reference as ch04  # noqa: E402

# (seed, max_new_tokens, prompt, temperature, top_k, eos_id); eos_id "4th" means: the 4th token this
# case generates without an eos_id, so that generation stops after three.
CASES = [
    (123, 10, "Hello, I am", 0.7, None, None),
    (123, 10, "Hello, I am", 0.7, 50, None),
    (123, 10, "Hello, I am", 1.0, None, None),
    (123, 10, "Hello, I am", 1.0, 1, None),
    (123, 10, "Hello, I am", 1.0, 50, None),
    (123, 10, "Hello, I am", 1.4, None, None),
    (123, 15, "Every effort moves you", 1.4, 25, None),   # the book's 5.3.3 call (trained model there)
    (123, 10, "Hello, I am", 0.0, 25, None),              # top-k cannot change a greedy choice
    (123, 10, "Hello, I am", 1.4, 25, "4th"),
    (123, 10, "Hello, I am", 0.0, None, "4th"),
    (0, 8, "The quick brown fox", 1.0, 25, None),
]


def book_generate():
    """The book's generate(), compiled from its source in gpt_generate.py."""
    tree = ast.parse(GPT_GENERATE.read_text(encoding="utf-8"))
    fn = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "generate")
    namespace = {"torch": torch}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), str(GPT_GENERATE), "exec"), namespace)
    return namespace["generate"]


def main():
    generate = book_generate()
    tok = ch04.tokenizer()
    cfg = copy.deepcopy(ch04.GPT_CONFIG_124M)
    models = {}
    for seed, max_new, prompt, temperature, top_k, eos_id in CASES:
        if seed not in models:
            torch.manual_seed(seed)
            model = ch04.GPTModel(cfg)
            model.eval()
            models[seed] = (model, torch.get_rng_state())  # the generator where GPTModel(cfg) left it
        model, state = models[seed]
        idx = torch.tensor(tok.encode(prompt)).unsqueeze(0)

        def run(eos):
            torch.set_rng_state(state)
            return generate(model, idx, max_new, cfg["context_length"], temperature=temperature, top_k=top_k, eos_id=eos)

        if eos_id == "4th":
            eos_id = int(run(None)[0, idx.shape[1] + 3])
        out = run(eos_id)
        ids = out.squeeze(0).tolist()
        text = tok.decode(ids)
        fields = ["case", "gpt2-small", seed, max_new, prompt.encode("utf-8").hex(), repr(temperature),
                  "none" if top_k is None else top_k, "none" if eos_id is None else eos_id]
        print("\t".join(map(str, fields)))
        print(" ".join(map(str, ids)))
        print(text.replace("\\", "\\\\").replace("\n", "\\n"))


if __name__ == "__main__":
    main()
