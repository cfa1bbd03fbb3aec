"""Chapter 6's classifier on a tiny GPT, as real PyTorch 1.13 computes it with the book's code:
GPTModel (ch06/01_main-chapter-code/previous_chapters.py), calc_accuracy_loader and calc_loss_loader
(gpt_class_finetune.py), classify_review (the notebook's cell, executed from ch06.ipynb), on the
splits in data/tests/ch06/ (make_ch06_data_goldens.py) with the notebook's loaders.

The tiny model: vocab 50257, context 128, emb_dim 8, 2 heads, 2 layers, drop_rate 0.0, qkv_bias
True, drawn under torch.manual_seed(123); its out_head replaced under torch.manual_seed(123) by
Linear(8, 2), as the notebook does. float32 values are written with %.9g (which tells every
float32 apart), Python floats with %.17g. Then the notebook's fine-tuning (training_cases). Writes data/tests/ch06/classifier_cases.txt.
And the bonus script ch06/02_bonus_additional-experiments/additional_experiments.py's
train_classifier_simple under its --trainable_token_pos and --trainable_layers choices
(experiment_cases): data/tests/ch06/experiment_cases.txt.

usage: OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/make_ch06_classifier_goldens.py BOOK
"""
import json
import os
import pathlib
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book_checkout  # noqa: E402

FOLDER = "ch06/01_main-chapter-code"
BOOK, _ = book_checkout.argument("make_ch06_classifier_goldens.py BOOK", FOLDER + "/gpt_class_finetune.py")
OUT = pathlib.Path(__file__).resolve().parents[2] / "data" / "tests" / "ch06"
TINY = {"vocab_size": 50257, "context_length": 128, "emb_dim": 8, "n_heads": 2, "n_layers": 2,
        "drop_rate": 0.0, "qkv_bias": True}


def training_cases(book, GPTModel, train_loader, val_loader, device):
    """The notebook's fine-tuning on the tiny model: every parameter frozen, the new head, the last
    block and final_norm trainable, AdamW over model.parameters() (lr 5e-4, weight decay 0.1),
    train_classifier_simple for 3 epochs, eval_freq 1, eval_iter 1; under PyTorch 2.x's AdamW
    (torch2x_adamw.py) and 1.13's own. Each case: what the loop prints, its returned lists, and the
    trainable parameters' values afterwards (%.9g, in model.parameters() order)."""
    import contextlib
    import io
    import torch
    import torch2x_adamw

    out = []
    for version in ("2", "1.13"):
        if version == "2":
            torch2x_adamw.install()
        else:
            torch2x_adamw.uninstall()
        torch.manual_seed(123)
        model = GPTModel(TINY)
        for param in model.parameters():
            param.requires_grad = False
        torch.manual_seed(123)
        model.out_head = torch.nn.Linear(in_features=TINY["emb_dim"], out_features=2)
        for param in model.trf_blocks[-1].parameters():
            param.requires_grad = True
        for param in model.final_norm.parameters():
            param.requires_grad = True
        torch.manual_seed(123)
        optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.1)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            train_losses, val_losses, train_accs, val_accs, examples_seen = book.train_classifier_simple(
                model, train_loader, val_loader, optimizer, device, num_epochs=3, eval_freq=1, eval_iter=1)
        lists = [" ".join("%.17g" % v for v in values) for values in (train_losses, val_losses, train_accs, val_accs)]
        params = [f"{name} " + " ".join("%.9g" % v for v in p.detach().flatten().tolist())
                  for name, p in model.named_parameters() if p.requires_grad]
        out.append((f"train {version}", printed.getvalue().rstrip("\n") + "\n" + "\n".join(lists) +
                    f"\n{examples_seen}\n" + "\n".join(params)))
    return out


EXPERIMENTS = [("first", "last_block"), ("last", "last_layer"), ("last", "last_two_blocks"), ("last", "all"), ("first", "all"),
               ("first", "lora"), ("last", "lora"), ("last", "last_block accumulation 2"), ("first", "lora accumulation 3"),
               ("flexible", "last_block"), ("flexible", "all"), ("average", "last_block"), ("average", "all"),
               ("last", "last_block nomask"), ("first", "all nomask"), ("last", "last_block ignore 1"), ("first", "all ignore 0"),
               ("flexible", "last_block ignore 1"), ("last", "lora_alternative"), ("first", "lora_alternative accumulation 2")]


def experiment_cases(GPTModel, train_loader, val_loader, device, train_ids):
    """additional_experiments.py's choices on the tiny model, as its __main__ makes them: every
    parameter frozen; torch.manual_seed(123), the new head; --trainable_layers unfreezes (last_layer:
    nothing more; last_block: trf_blocks[-1] and final_norm; last_two_blocks: and trf_blocks[-2];
    all: every parameter; lora: the script's replace_linear_with_lora, rank 4, alpha 8, out_head's
    Linear trainable; lora_alternative: the same with its LinearWithLoRAMerged (x times one
    weight, W + alpha * (A @ B).T); "... accumulation N": with accumulation_steps N; "... nomask": the bonus
    folder's GPTModel(..., disable_causal_mask=True); "... ignore N": with ignore_index N, a label); torch.manual_seed(123), AdamW over model.parameters() (lr 5e-4, weight
    decay 0.1, PyTorch 2.x's step); the script's train_classifier_simple with trainable_token_pos
    0 (first), -1 (last) or "flexible", or average_embeddings ("average") for 3 epochs, eval_freq 1, eval_iter 1. Each case as training_cases',
    but tok_emb.weight (50257 rows) only at the rows of row 0 and of the ids in train.csv's
    batches (the others only decay), in increasing id order."""
    import contextlib
    import importlib.util
    import io
    import torch
    import torch2x_adamw

    spec = importlib.util.spec_from_file_location(
        "additional_experiments", pathlib.Path(BOOK, "ch06", "02_bonus_additional-experiments", "additional_experiments.py"))
    bonus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bonus)  # its __main__ block does not run
    torch2x_adamw.install()
    rows = sorted(set(train_ids) | {0})
    out = []
    # the bonus folder's GPTModel, which takes disable_causal_mask (the chapter's does not)
    spec = importlib.util.spec_from_file_location(
        "bonus_previous_chapters", pathlib.Path(BOOK, "ch06", "02_bonus_additional-experiments", "previous_chapters.py"))
    bonus_chapters = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bonus_chapters)
    for position, setup in EXPERIMENTS:
        choices, _, ignore = setup.partition(" ignore ")
        nomask = choices.endswith(" nomask")
        layers, _, steps = choices.removesuffix(" nomask").partition(" accumulation ")
        torch.manual_seed(123)
        model = bonus_chapters.GPTModel(TINY, disable_causal_mask=True) if nomask else GPTModel(TINY)
        model.eval()
        for param in model.parameters():
            param.requires_grad = False
        torch.manual_seed(123)
        model.out_head = torch.nn.Linear(in_features=TINY["emb_dim"], out_features=2)
        if layers in ("last_block", "last_two_blocks"):
            for param in model.trf_blocks[-1].parameters():
                param.requires_grad = True
            for param in model.final_norm.parameters():
                param.requires_grad = True
            if layers == "last_two_blocks":
                for param in model.trf_blocks[-2].parameters():
                    param.requires_grad = True
        elif layers == "all":
            for param in model.parameters():
                param.requires_grad = True
        elif layers in ("lora", "lora_alternative"):
            bonus.replace_linear_with_lora(model, rank=4, alpha=8, alternative=layers == "lora_alternative")
        torch.manual_seed(123)
        optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.1)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            train_losses, val_losses, train_accs, val_accs, examples_seen = bonus.train_classifier_simple(
                model, train_loader, val_loader, optimizer, device, num_epochs=3, eval_freq=1, eval_iter=1,
                trainable_token_pos={"first": 0, "last": -1, "flexible": "flexible", "average": -1}[position],
                accumulation_steps=int(steps or 1), average_embeddings=position == "average",
                ignore_index=int(ignore or -100))
        lists = [" ".join("%.17g" % v for v in values) for values in (train_losses, val_losses, train_accs, val_accs)]
        params = []
        for name, p in model.named_parameters():
            if not p.requires_grad:
                continue
            values = p.detach()[rows] if name == "tok_emb.weight" else p.detach()
            params.append(f"{name} " + " ".join("%.9g" % v for v in values.flatten().tolist()))
        out.append((f"{position} {setup}", printed.getvalue().rstrip("\n") + "\n" + "\n".join(lists) +
                    f"\n{examples_seen}\n" + "\n".join(params)))
    torch2x_adamw.uninstall()
    return out


def main():
    import tiktoken_stub
    tiktoken_stub.install()
    import empty_modules
    empty_modules.install("tensorflow", "tqdm", "requests", "matplotlib", "matplotlib.pyplot")
    sys.path.insert(0, str(pathlib.Path(BOOK, FOLDER)))
    import tiktoken
    import torch
    from torch.utils.data import DataLoader
    import gpt_class_finetune as book
    from previous_chapters import GPTModel

    nb = json.loads(pathlib.Path(BOOK, FOLDER, "ch06.ipynb").read_text(encoding="utf-8"))
    ns = {"torch": torch}
    cell = next("".join(c["source"]) for c in nb["cells"]
                if c["cell_type"] == "code" and "def classify_review" in "".join(c["source"]))
    exec(compile(cell, "ch06.ipynb", "exec"), ns)
    classify_review = ns["classify_review"]

    tokenizer = tiktoken.get_encoding("gpt2")
    device = torch.device("cpu")
    train_dataset = book.SpamDataset(csv_file=OUT / "train.csv", max_length=None, tokenizer=tokenizer)
    val_dataset = book.SpamDataset(csv_file=OUT / "validation.csv", max_length=train_dataset.max_length,
                                   tokenizer=tokenizer)
    torch.manual_seed(123)
    train_loader = DataLoader(dataset=train_dataset, batch_size=8, shuffle=True, num_workers=0, drop_last=True)
    val_loader = DataLoader(dataset=val_dataset, batch_size=8, num_workers=0, drop_last=False)

    torch.manual_seed(123)
    model = GPTModel(TINY)
    model.eval()
    torch.manual_seed(123)
    model.out_head = torch.nn.Linear(in_features=TINY["emb_dim"], out_features=2)
    cases = []

    inputs = torch.tensor(tokenizer.encode("Do you have time")).unsqueeze(0)
    with torch.no_grad():
        outputs = model(inputs)
    cases.append(("outputs", " ".join("%.9g" % v for v in outputs.flatten().tolist())))

    torch.manual_seed(123)
    accs = [book.calc_accuracy_loader(loader, model, device, num_batches=10) for loader in (train_loader, val_loader)]
    cases.append(("accuracy", " ".join("%.17g" % a for a in accs)))
    with torch.no_grad():
        losses = [book.calc_loss_loader(loader, model, device, num_batches=5) for loader in (train_loader, val_loader)]
    cases.append(("loss", " ".join("%.17g" % v for v in losses)))
    texts = ["You are a winner you have been specially selected to receive $1000 cash or a $2000 award.",
             "Hey, just wanted to check if we're still on for dinner tonight? Let me know!"]
    cases.append(("classify", " | ".join(classify_review(t, model, tokenizer, device, max_length=train_dataset.max_length)
                                         for t in texts)))
    cases += training_cases(book, GPTModel, train_loader, val_loader, device)
    with open(OUT / "classifier_cases.txt", "w") as f:
        for name, text in cases:
            f.write(f"case {name}\n{text}\nend\n")
    train_ids = [i for text in train_dataset.encoded_texts for i in text]
    with open(OUT / "experiment_cases.txt", "w") as f:
        for name, text in experiment_cases(GPTModel, train_loader, val_loader, device, train_ids):
            f.write(f"case {name}\n{text}\nend\n")


if __name__ == "__main__":
    main()
