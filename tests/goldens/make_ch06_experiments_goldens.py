"""The book's ch06/02_bonus_additional-experiments/additional_experiments.py (the script the answers to
exercises 6.1 to 6.3 run) with --weights random, run by real PyTorch 1.13 with PyTorch 2.x's AdamW
(torch2x_adamw.py) from the checkout BOOK, in a temporary folder holding data/tests/ch06/sms_clean.tsv
as sms_spam_collection/SMSSpamCollection.tsv (so the script skips its download and writes its own
train.csv, validation.csv and test.csv). tiktoken is tiktoken_stub.py; tensorflow and tqdm
(gpt_download.py's imports, unused with random weights) are empty modules.

Two lines of the script are changed, so that its random GPT is small (the tests' emb_dim 12, 2
heads, 2 layers, context 256; BASE_CONFIG's drop_rate 0.0 and qkv_bias True kept):
    BASE_CONFIG.update(model_configs[choose_model])   gets   BASE_CONFIG.update(SIZES) after it
    torch.nn.Linear(in_features=in_features, ...)     reads  in_features=BASE_CONFIG's emb_dim
Each run's stdout goes to data/tests/ch06/experiments/<run>.txt (llmfs-classifier-experiments'
golden: common/train/class_experiments_test.cpp) and the CSVs (the same for every run) to
data/tests/ch06/experiments/. The runs of exercises 6.1 to 6.3 (the exercise programs' --small) add
--num_epochs 8 --batch_size 1: 160 steps, so that each of the four --trainable_layers choices prints
other digits (with the script's 10 steps, last_block and all print the same lines, and a student's
unchanged choice would pass exercise 6.2); each goes to data/golden/default/ch06_exercise_6_N.txt
without the download line and the timing line, and nowhere in the hand-out.

usage: OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/make_ch06_experiments_goldens.py BOOK
"""
import contextlib
import io
import os
import pathlib
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book_checkout  # noqa: E402

SCRIPT = "ch06/02_bonus_additional-experiments/additional_experiments.py"
BOOK, _ = book_checkout.argument("make_ch06_experiments_goldens.py BOOK", SCRIPT)
ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "data" / "tests" / "ch06" / "experiments"
SIZES = {"emb_dim": 12, "n_heads": 2, "n_layers": 2, "context_length": 256}
CONFIG_LINE = "    BASE_CONFIG.update(model_configs[choose_model])\n"
HEAD_LINE = "model.out_head = torch.nn.Linear(in_features=in_features, out_features=2)"
# run name -> the script's flags after --weights random
RUNS = {
    "default": [],
    "token_first": ["--trainable_token_pos", "first"],
    "layers_all": ["--trainable_layers", "all"],
    "context_model": ["--context_length", "model_context_length"],
    "two_blocks_ctx64_ep2_b4": ["--trainable_layers", "last_two_blocks", "--context_length", "64", "--num_epochs", "2",
                                "--batch_size", "4"],
    "last_layer": ["--trainable_layers", "last_layer"],
    "lora": ["--trainable_layers", "lora"],
    "lora_r2_a16_first": ["--trainable_layers", "lora", "--lora_rank", "2", "--lora_alpha", "16", "--trainable_token_pos", "first"],
    "accumulation2_b4": ["--accumulation_steps", "2", "--batch_size", "4"],
    "lora_accumulation3_b2": ["--trainable_layers", "lora", "--accumulation_steps", "3", "--batch_size", "2"],
    "lora_alternative": ["--trainable_layers", "lora_alternative"],
    "lora_alternative_r2_a16_first": ["--trainable_layers", "lora_alternative", "--lora_rank", "2", "--lora_alpha", "16",
                                      "--trainable_token_pos", "first"],
    "token_flexible": ["--trainable_token_pos", "flexible"],
    "ignore_index_50256": ["--ignore_index", "50256"],
    "ignore_index_1": ["--ignore_index", "1"],  # a label, yet __main__ never hands it to train_classifier_simple
    "no_padding_b1": ["--no_padding", "--batch_size", "1"],
    "no_padding_b1_accumulation8": ["--no_padding", "--batch_size", "1", "--accumulation_steps", "8"],
    "average_embeddings": ["--average_embeddings"],
    "average_embeddings_all_b4": ["--average_embeddings", "--trainable_layers", "all", "--batch_size", "4"],
    "no_causal_mask": ["--disable_causal_mask"],
    "no_causal_mask_all_first": ["--disable_causal_mask", "--trainable_layers", "all", "--trainable_token_pos", "first"],
}
# exercise -> its flags (the exercise program's --small)
EXERCISE_FLAGS = ["--num_epochs", "8", "--batch_size", "1"]
EXERCISES = {"6_1": ["--context_length", "model_context_length"], "6_2": ["--trainable_layers", "all"],
             "6_3": ["--trainable_token_pos", "first"]}


def patched_source(script):
    source = script.read_text(encoding="utf-8")
    assert source.count(CONFIG_LINE) == 1 and source.count(HEAD_LINE) == 1
    source = source.replace(CONFIG_LINE, CONFIG_LINE + f"    BASE_CONFIG.update({SIZES!r})\n")
    return source.replace(HEAD_LINE, HEAD_LINE.replace("in_features=in_features", f"in_features={SIZES['emb_dim']}"))


def main():
    import tiktoken_stub
    import torch2x_adamw
    tiktoken_stub.install()
    torch2x_adamw.install()
    import empty_modules
    empty_modules.install("tensorflow", "tqdm")
    script = pathlib.Path(BOOK, SCRIPT).resolve()
    sys.path.insert(0, str(script.parent))
    code = compile(patched_source(script), str(script), "exec")
    OUT.mkdir(exist_ok=True)
    csvs = None
    for run, flags in RUNS.items():
        text, written = run_script(code, script, flags)
        assert csvs is None or csvs == written
        csvs = written
        (OUT / f"{run}.txt").write_text(text)
    for name, data in csvs.items():
        (OUT / name).write_bytes(data)
    for exercise, flags in EXERCISES.items():
        text, written = run_script(code, script, flags + EXERCISE_FLAGS)
        assert written == csvs
        lines = text.splitlines(keepends=True)
        assert lines[0].endswith("already exists. Skipping download and extraction.\n")
        kept = [line for line in lines[1:] if not line.startswith("Training completed in ")]
        assert len(kept) == len(lines) - 2
        (ROOT / "data" / "golden" / "default" / f"ch06_exercise_{exercise}.txt").write_text("".join(kept))


def run_script(code, script, flags):
    """The script's stdout and the CSVs it wrote, run with --weights random and flags."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "sms_spam_collection"))
        shutil.copy(ROOT / "data" / "tests" / "ch06" / "sms_clean.tsv",
                    os.path.join(tmp, "sms_spam_collection", "SMSSpamCollection.tsv"))
        cwd = os.getcwd()
        os.chdir(tmp)
        printed = io.StringIO()
        try:
            sys.argv = [str(script), "--weights", "random"] + flags
            with contextlib.redirect_stdout(printed):
                exec(code, {"__name__": "__main__", "__file__": str(script)})
        finally:
            os.chdir(cwd)
        written = {name: pathlib.Path(tmp, name).read_bytes() for name in ("train.csv", "validation.csv", "test.csv")}
    return printed.getvalue(), written

if __name__ == "__main__":
    main()
