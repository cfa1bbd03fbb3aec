"""Book 5.5 ("Loading pretrained weights from OpenAI") run for real on a small GPT-2 checkpoint
folder: the reference for ch05_openai_weights (data/golden/default/ch05_openai_weights_tiny.txt).

    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/ch05_openai_weights_reference.py BOOK \\
        > data/golden/default/ch05_openai_weights_tiny.txt

(BOOK: a checkout of github.com/rasbt/LLMs-from-scratch; without it the usage line, exit status 2.)
--notebook OUT also writes the book's ch05.ipynb with the output of each 5.5 cell run here in place
of the book's (the other cells cleared, as not run: executed_notebook.py), llmfs-nbcheck's test
notebook for that folder:

    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/ch05_openai_weights_reference.py BOOK \
        --notebook tests/nbcheck/ch05_openai_weights_tiny.ipynb > /dev/null

The checkpoint: make_safetensors_goldens.py's "tiny" GPT-2 (emb_dim 128, 2 layers, context 32, the
real vocabulary; values from torch.manual_seed), under OpenAI's TensorFlow names and shapes
(model/h0/attn/c_attn/w [1, 128, 384], model/ln_f/g, ...), the folder the C++ test writes with
write_gpt2_tf_folder and hparams.json {"n_vocab": 50257, "n_ctx": 32, "n_embd": 128, "n_head": 2,
"n_layer": 2}. TensorFlow is not installed here: its tf.train.list_variables / load_variable are a
stand-in serving those arrays (sorted names, as TensorFlow lists them), under which the book's own
gpt_download.load_gpt2_params_from_tf_ckpt builds `params`. Then the notebook's cells of 5.5 run
as they are (print(settings), params.keys(), print(params["wte"]), the model, assign,
load_weights_into_gpt, generate after torch.manual_seed(123)), but for one line added to the
model's cell: NEW_CONFIG takes the folder's sizes (emb_dim 128, n_layers 2, n_heads 2,
context_length 32) before GPTModel(NEW_CONFIG), where gpt2-small's would not fit the tensors.
"""
import contextlib
import io
import json
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_safetensors_goldens as synthetic  # noqa: E402  (parses BOOK from the command line)
import numpy as np  # noqa: E402
import torch  # noqa: E402

HPARAMS = {"n_vocab": 50257, "n_ctx": 32, "n_embd": 128, "n_head": 2, "n_layer": 2}
MODEL_CELL_LINE = "gpt = GPTModel(NEW_CONFIG)"
SIZES_LINE = 'NEW_CONFIG.update({"emb_dim": 128, "n_layers": 2, "n_heads": 2, "context_length": 32})  # the folder\'s sizes'


def tf_name(hf):
    """h.0.attn.c_attn.weight -> model/h0/attn/c_attn/w; wte.weight -> model/wte; ln_f.weight -> model/ln_f/g."""
    parts = hf.split(".")
    if parts[0] == "h":
        parts = ["h" + parts[1]] + parts[2:]
    if parts[-1] == "weight":
        parts[-1] = "g" if parts[-2].startswith("ln_") else "w"
        if parts[0] in ("wte", "wpe"):
            parts = parts[:-1]
    elif parts[-1] == "bias":
        parts[-1] = "b"
    return "model/" + "/".join(parts)


def checkpoint_arrays():
    arrays = {}
    for name, t in synthetic.draw_values(synthetic.FILES["tiny"]).items():
        if name.endswith(".attn.bias"):
            continue  # Hugging Face's mask buffer, not in OpenAI's checkpoint
        a = t.numpy()
        if name.endswith(("c_attn.weight", "c_proj.weight", "c_fc.weight")):
            a = a[None]  # OpenAI's Conv1D weights are [1, in, out]
        arrays[tf_name(name)] = a
    return arrays


def install_tensorflow(arrays):
    train = types.SimpleNamespace(
        list_variables=lambda path: [(n, list(arrays[n].shape)) for n in sorted(arrays)],
        load_variable=lambda path, name: arrays[name],
    )
    sys.modules["tensorflow"] = types.SimpleNamespace(train=train)


def main():
    import tiktoken_stub
    tiktoken_stub.install()
    install_tensorflow(checkpoint_arrays())
    book = synthetic.import_book()
    sys.path.insert(0, synthetic.CH05)
    import gpt_download  # the book's: load_gpt2_params_from_tf_ckpt
    import tiktoken
    settings = dict(HPARAMS)  # json.load(hparams.json), in the file's order
    params = gpt_download.load_gpt2_params_from_tf_ckpt("gpt2/tiny/model.ckpt", settings)

    notebook = os.path.join(synthetic.BOOK, "ch05", "01_main-chapter-code", "ch05.ipynb")
    with open(notebook, encoding="utf-8") as f:
        cells = [c for c in json.load(f)["cells"]]
    start = next(i for i, c in enumerate(cells) if "## 5.5 Loading pretrained weights" in "".join(c["source"]))
    end = next(i for i, c in enumerate(cells) if "## Summary and takeaways" in "".join(c["source"]))
    first_code = sum(c["cell_type"] == "code" for c in cells[:start])  # the index of 5.5's first code cell
    code = ["".join(c["source"]) for c in cells[start:end] if c["cell_type"] == "code"]
    ns = {"torch": torch, "np": np, "settings": settings, "params": params, "GPTModel": book.GPTModel,
          "GPT_CONFIG_124M": {"vocab_size": 50257, "context_length": 256, "emb_dim": 768, "n_heads": 12, "n_layers": 12,
                              "drop_rate": 0.1, "qkv_bias": False},
          "generate": book.generate, "text_to_token_ids": book.text_to_token_ids,
          "token_ids_to_text": book.token_ids_to_text, "tokenizer": tiktoken.get_encoding("gpt2"), "device": torch.device("cpu")}
    printed = {}  # code cell index -> what it printed
    for k, src in enumerate(code):
        if src.lstrip().startswith(("# pip install", "print(\"TensorFlow version", "# Relative import", "settings, params = ")):
            continue  # installs, versions, the import and the download: done above
        if MODEL_CELL_LINE in src:
            src = src.replace(MODEL_CELL_LINE, SIZES_LINE + "\n" + MODEL_CELL_LINE)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(src, notebook, "exec"), ns)
        sys.stdout.write(out.getvalue())
        printed[first_code + k] = out.getvalue()
    options = synthetic.OPTIONS
    if options[:1] == ["--notebook"] and len(options) == 2:
        import executed_notebook
        executed_notebook.write(notebook, printed, options[1])
    elif options:
        sys.stderr.write("usage: ch05_openai_weights_reference.py BOOK [--notebook OUT]\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
