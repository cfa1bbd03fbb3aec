#!/usr/bin/python3
"""Run script_reference.py over the case list below, one process at a time, and write

    goldens/<program>__<args joined by _>.txt           stdout (the golden)
    goldens/<program>__<args joined by _>.stderr.txt    stderr, for cases whose stderr matters
                                                         (argparse errors, exceptions)
    goldens/INDEX.tsv       program, argv (JSON), prog (argv[0] seen by argparse), exit code,
                            stdout file, stderr file ('-' if none), note

where goldens/ is data/golden/scripts/, and nothing else, except with --timings FILE: a log of
the runs appended to FILE (program, argv, wall seconds, the timing lines the run sent to stderr).

    /usr/bin/python3 tests/goldens/make_script_goldens.py BOOK [REGEX] [--force] [--timings FILE]
BOOK: a checkout of rasbt/LLMs-from-scratch (the goldens: commit 28c65cd), the first positional
argument as in every golden script (book_checkout.py); without it: usage on stderr, exit status 2.

Only cases whose file name matches REGEX are (re)run; existing files are kept unless --force.
The stderr files hold no path of the machine that made them: in Python's tracebacks the
checkout's absolute path is written BOOK and this script's folder (tests/goldens/, where
script_reference.py is) GOLDENS (see without_machine_paths). Only an error's last line is compared
by the tests, and --help/-h/--bogus output (compared whole) names no file.
Every process gets OPENBLAS_CORETYPE=Haswell, COLUMNS=80, OMP_NUM_THREADS=1 (thread count does
not change the numbers, checked: see NOTES.md; it only avoids oversubscribing the shared cores).
With no argument the default argv[0] is the book's file name; cases marked llmfs_prog run with
argv[0] = the llmfs program name (argparse's usage line then says `usage: ch04_gqa ...`).
"""
import json
import random
import os
import re
import subprocess
import sys
import time

import book_checkout

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "data", "golden", "scripts")
REF = os.path.join(HERE, "script_reference.py")
BOOK = None  # the checkout's absolute path, from the command line

S = "--emb_dim 64 --n_heads 4 --n_layers 2".split()          # small model
M = "--emb_dim 96 --n_heads 6 --n_layers 3".split()          # small model, 6 heads

# (program, argv, kind) kind: "run" (stdout golden), "err" (stderr matters too),
# "help"/"err" with prog "llmfs" variants added below
CASES = []


def run(prog, *argv):
    CASES.append((prog, list(argv), "run"))


def err(prog, *argv):
    CASES.append((prog, list(argv), "err"))


# ---- ch04_kv_mha (04_gqa/gpt_with_kv_mha.py; 05/06 copies checked identical) -----------------
run("ch04_kv_mha")
run("ch04_kv_mha@05")
run("ch04_kv_mha@06")
run("ch04_kv_mha", "--max_new_tokens", "20")
run("ch04_kv_mha", *S, "--max_new_tokens", "30")
run("ch04_kv_mha@05", *S, "--max_new_tokens", "30")
run("ch04_kv_mha@06", *S, "--max_new_tokens", "30")
run("ch04_kv_mha", *M, "--max_new_tokens", "50")
run("ch04_kv_mha", "--emb_dim", "128", "--n_heads", "1", "--n_layers", "1", "--max_new_tokens", "25")
run("ch04_kv_mha", *S, "--max_new_tokens", "0")
run("ch04_kv_mha", *S, "--max_new_tokens", "1")
run("ch04_kv_mha", "--emb", "64", "--n_h", "4", "--n_l", "2", "--max", "12")   # argparse prefixes
run("ch04_kv_mha", "--emb_dim=64", "--n_heads=4", "--n_layers=2", "--max_new_tokens=12")
run("ch04_kv_mha", *M, "--max_new_tokens", "1100")     # > 1000 elements: tensor print summarizes

# ---- ch04_gqa -----------------------------------------------------------------------------
run("ch04_gqa")
run("ch04_gqa", "--max_new_tokens", "30", "--n_kv_groups", "1")
run("ch04_gqa", "--max_new_tokens", "30", "--n_kv_groups", "3")
run("ch04_gqa", "--max_new_tokens", "30", "--n_kv_groups", "4")
run("ch04_gqa", "--max_new_tokens", "30", "--n_kv_groups", "12")
run("ch04_gqa", *M, "--max_new_tokens", "40", "--n_kv_groups", "1")
run("ch04_gqa", *M, "--max_new_tokens", "40", "--n_kv_groups", "2")
run("ch04_gqa", *M, "--max_new_tokens", "40", "--n_kv_groups", "3")
run("ch04_gqa", *M, "--max_new_tokens", "40", "--n_kv_groups", "6")
run("ch04_gqa", *S, "--max_new_tokens", "30", "--n_kv_groups", "4")
err("ch04_gqa", *M, "--max_new_tokens", "5", "--n_kv_groups", "4")    # 6 % 4 != 0: AssertionError
err("ch04_gqa", *M, "--max_new_tokens", "5", "--n_kv_groups", "0")    # ZeroDivisionError

# ---- ch04_mla -----------------------------------------------------------------------------
run("ch04_mla")                                   # latent_dim None -> max(16, 768 // 8) = 96
run("ch04_mla", "--max_new_tokens", "30", "--latent_dim", "16")
run("ch04_mla", "--max_new_tokens", "30", "--latent_dim", "96")    # == default: same as None
run("ch04_mla", "--max_new_tokens", "30")
run("ch04_mla", "--max_new_tokens", "30", "--latent_dim", "192")
run("ch04_mla", "--max_new_tokens", "30", "--latent_dim", "1536")
run("ch04_mla", *S, "--max_new_tokens", "30")                     # latent max(16, 8) = 16
run("ch04_mla", *S, "--max_new_tokens", "30", "--latent_dim", "7")
run("ch04_mla", *S, "--max_new_tokens", "30", "--latent_dim", "1")
run("ch04_mla", *M, "--max_new_tokens", "40", "--latent_dim", "48")
err("ch04_mla", *S, "--max_new_tokens", "10", "--latent_dim", "0")   # zero-size layers: warning

# ---- ch04_swa -----------------------------------------------------------------------------
run("ch04_swa")                                   # W=1024 > 204 tokens: no sliding happens
run("ch04_swa", "--max_new_tokens", "40", "--sliding_window_size", "16")
run("ch04_swa", "--max_new_tokens", "40", "--sliding_window_size", "16", "--sliding_window_stride", "5")
run("ch04_swa", "--max_new_tokens", "40", "--sliding_window_size", "16", "--sliding_window_stride", "0")
run("ch04_kv_mha", "--max_new_tokens", "40")       # = the stride 0 case (all regular layers)
run("ch04_swa", "--max_new_tokens", "40", "--sliding_window_size", "16", "--sliding_window_stride", "-1")
for stride in ("-3", "0", "1", "2", "3", "5", "6", "7"):
    run("ch04_swa", "--n_layers", "6", *S[:4], "--max_new_tokens", "40",
        "--sliding_window_size", "8", "--sliding_window_stride", stride)
for w in ("1", "2", "3", "4", "5", "42", "43", "44", "45"):
    run("ch04_swa", *M, "--max_new_tokens", "40", "--sliding_window_size", w,
        "--sliding_window_stride", "-1")
run("ch04_swa", *M, "--max_new_tokens", "40", "--sliding_window_size", "6")
run("ch04_swa", *S, "--max_new_tokens", "20", "--sliding_window_size", "0", "--sliding_window_stride", "-1")

# ---- ch04_kv_ffn (SwiGLU) -------------------------------------------------------------------
run("ch04_kv_ffn")
run("ch04_kv_ffn", "--max_new_tokens", "50")
run("ch04_kv_ffn", "--max_new_tokens", "50", "--no_kv_cache")
run("ch04_kv_ffn", "--max_new_tokens", "30", "--hidden_dim", "1024")
run("ch04_kv_ffn", "--max_new_tokens", "30", "--hidden_dim", "1024", "--no_kv_cache")
for h, nc in (("256", False), ("256", True), ("100", False), ("100", True), ("1", False)):
    run("ch04_kv_ffn", *M, "--max_new_tokens", "40", "--hidden_dim", h, *(["--no_kv_cache"] if nc else []))
run("ch04_kv_ffn", *S, "--max_new_tokens", "30")            # hidden_dim stays 3072 (not 4*emb_dim)
run("ch04_kv_ffn", *S, "--max_new_tokens", "30", "--no_kv_cache")

# ---- ch04_moe -----------------------------------------------------------------------------
run("ch04_moe")                                    # num_experts 0: dense GELU FFN (== ch04_kv_mha)
run("ch04_moe", "--max_new_tokens", "50")
run("ch04_moe", "--max_new_tokens", "50", "--no_kv_cache")
run("ch04_moe", "--max_new_tokens", "30", "--num_experts", "8", "--hidden_dim", "384")
run("ch04_moe", "--max_new_tokens", "30", "--num_experts", "8", "--hidden_dim", "384", "--no_kv_cache")
run("ch04_moe", "--max_new_tokens", "30", "--num_experts", "4", "--num_experts_per_tok", "1", "--hidden_dim", "768")
for ne, k, h in (("4", "1", "128"), ("4", "2", "128"), ("4", "3", "128"), ("4", "4", "128"),
                 ("1", "1", "256"), ("8", "2", "64"), ("16", "4", "32"), ("5", "3", "100")):
    for nc in (False, True):
        run("ch04_moe", *M, "--max_new_tokens", "40", "--num_experts", ne,
            "--num_experts_per_tok", k, "--hidden_dim", h, *(["--no_kv_cache"] if nc else []))
run("ch04_moe", *M, "--max_new_tokens", "40", "--hidden_dim", "256")                    # dense GELU
run("ch04_moe", *M, "--max_new_tokens", "40", "--hidden_dim", "256", "--num_experts_per_tok", "7")
run("ch04_moe", *M, "--max_new_tokens", "20", "--num_experts", "4", "--num_experts_per_tok", "0", "--hidden_dim", "64")
err("ch04_moe", *M, "--max_new_tokens", "5", "--num_experts", "2", "--num_experts_per_tok", "3", "--hidden_dim", "64")

# ---- odd-but-accepted integers and negative/zero token counts ---------------------------------
run("ch04_kv_mha", *S, "--max_new_tokens", "1_0")        # int("1_0") == 10
run("ch04_kv_mha", *S, "--max_new_tokens", "+5")
run("ch04_kv_mha", *S, "--max_new_tokens", " 7 ")
run("ch04_kv_mha", *S, "--max_new_tokens", "-1")         # context_length 3: output = the prompt
err("ch04_kv_mha", *S, "--max_new_tokens", "-3")
err("ch04_kv_mha", *S, "--max_new_tokens", "-4")         # context_length 0
run("ch04_kv_ffn", *S, "--max_new_tokens", "0")
run("ch04_kv_ffn", *S, "--max_new_tokens", "0", "--no_kv_cache")
err("ch04_kv_ffn", *S, "--max_new_tokens", "-1")
run("ch04_moe", *S, "--max_new_tokens", "0", "--num_experts", "3", "--hidden_dim", "32")

# ---- zero widths and negative layer counts: Python builds and runs these --------------------
# --emb_dim 0: every activation is [T, 0], the logits out_head's zeros, so token 0 ("!") each step.
for p in ("ch04_kv_mha", "ch04_gqa", "ch04_mla", "ch04_swa", "ch04_kv_ffn", "ch04_moe"):
    run(p, "--emb_dim", "0", "--n_layers", "2", "--max_new_tokens", "5")
run("ch04_kv_ffn", "--emb_dim", "0", "--n_layers", "2", "--max_new_tokens", "5", "--no_kv_cache")
run("ch04_moe", "--emb_dim", "0", "--n_layers", "2", "--max_new_tokens", "5", "--num_experts", "4", "--num_experts_per_tok", "2")
run("ch04_gqa", "--emb_dim", "0", "--n_layers", "2", "--max_new_tokens", "5", "--n_kv_groups", "3")
run("ch04_mla", "--emb_dim", "0", "--n_layers", "2", "--max_new_tokens", "5", "--latent_dim", "0")
run("ch04_swa", "--emb_dim", "0", "--n_layers", "3", "--max_new_tokens", "8", "--sliding_window_size", "2",
    "--sliding_window_stride", "1")
# range(n_layers) below 0 is empty: no blocks, as --n_layers 0
run("ch04_kv_mha", *S[:4], "--n_layers", "-1", "--max_new_tokens", "5")
run("ch04_swa", *S[:4], "--n_layers", "-3", "--max_new_tokens", "5", "--sliding_window_size", "2")
# torch.topk(scores, -1): refused at the first forward, after the IN block
err("ch04_moe", *M, "--max_new_tokens", "5", "--num_experts", "4", "--num_experts_per_tok", "-1", "--hidden_dim", "64")

# ---- argparse: --help and bad input, per GPT script ---------------------------------------
GPT = ["ch04_kv_mha", "ch04_gqa", "ch04_mla", "ch04_swa", "ch04_kv_ffn", "ch04_moe"]
for p in GPT:  # --help and -h: below, under the program's own name (argparse wraps by it)
    err(p, "--emb_dim", "abc")
    err(p, "--max_new_tokens", "1.5")
    err(p, "--max_new_tokens")
    err(p, "--bogus", "1")
    err(p, "extra")
    err(p, "--n", "2")             # ambiguous prefix
    err(p, "--n_heads", "4", "--emb_dim", "x", "--bogus")
err("ch04_gqa", "--n_kv_groups", "two")
err("ch04_mla", "--latent_dim", "")
err("ch04_swa", "--sliding_window_size", "1e3")
err("ch04_swa", "--sliding", "8")          # ambiguous: --sliding_window_size / _stride
err("ch04_kv_ffn", "--no_kv_cache=1")
err("ch04_kv_ffn", "--no_kv_cache", "1")
err("ch04_moe", "--num_experts", "-")
err("ch04_moe", "--num_experts_per_tok", "0x2")

# ---- memory estimators --------------------------------------------------------------------
E_GQA = "ch04_memory_estimator_gqa"
run(E_GQA, "--emb_dim", "4096", "--n_heads", "32", "--n_layers", "32", "--context_length", "32768",
    "--n_kv_groups", "4", "--batch_size", "1", "--dtype", "bf16")              # README example
run(E_GQA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "2")  # minimal
run(E_GQA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "2",
    "--context_length", "204", "--dtype", "fp32")                               # = ch04_gqa defaults
run(E_GQA, "--emb_dim", "2048", "--n_heads", "24", "--n_layers", "48", "--n_kv_groups", "8",
    "--context_length", "131072", "--batch_size", "8", "--dtype", "fp32")
run(E_GQA, "--emb_dim", "1000", "--n_heads", "7", "--n_layers", "5", "--n_kv_groups", "7",
    "--context_length", "333", "--dtype", "int8")
run(E_GQA, "--emb_dim", "100", "--n_heads", "3", "--n_layers", "1", "--n_kv_groups", "1",
    "--context_length", "1", "--dtype", "fp8")
run(E_GQA, "--emb_dim", "8192", "--n_heads", "64", "--n_layers", "80", "--n_kv_groups", "8",
    "--context_length", "1000000", "--batch_size", "64", "--dtype", "fp16")
run(E_GQA, "--emb_dim", "64", "--n_heads", "128", "--n_layers", "2", "--n_kv_groups", "16")
run(E_GQA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "-3")
run(E_GQA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "12",
    "--context_length", "-5")
run(E_GQA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "0", "--n_kv_groups", "3")
err(E_GQA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "5")
err(E_GQA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "0")
err(E_GQA, "--emb_dim", "768", "--n_heads", "0", "--n_layers", "12", "--n_kv_groups", "1")

E_MLA = "ch04_memory_estimator_mla"
run(E_MLA, "--context_length", "8192", "--emb_dim", "2048", "--n_heads", "24", "--n_layers", "48",
    "--n_kv_groups", "4", "--batch_size", "1", "--dtype", "bf16", "--latent_dim", "1024")  # README
run(E_MLA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "1",
    "--latent_dim", "96")
run(E_MLA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "1",
    "--latent_dim", "96", "--context_length", "204", "--dtype", "fp32")         # = ch04_mla defaults
run(E_MLA, "--emb_dim", "768", "--n_heads", "24", "--n_layers", "12", "--n_kv_groups", "4",
    "--latent_dim", "192", "--context_length", "32768")                         # README's GPT run
run(E_MLA, "--emb_dim", "7168", "--n_heads", "128", "--n_layers", "61", "--n_kv_groups", "128",
    "--latent_dim", "512", "--context_length", "131072", "--batch_size", "4", "--dtype", "fp8")
run(E_MLA, "--emb_dim", "1000", "--n_heads", "7", "--n_layers", "3", "--n_kv_groups", "7",
    "--latent_dim", "0", "--dtype", "int8")
run(E_MLA, "--emb_dim", "100", "--n_heads", "3", "--n_layers", "1", "--n_kv_groups", "3",
    "--latent_dim", "1", "--context_length", "0")
run(E_MLA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "2",
    "--latent_dim", "10000", "--dtype", "fp32")
run(E_MLA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "-2",
    "--latent_dim", "-50")
run(E_MLA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "0", "--n_kv_groups", "2",
    "--latent_dim", "64")
err(E_MLA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "5",
    "--latent_dim", "96")

E_SWA = "ch04_memory_estimator_swa"
run(E_SWA, "--emb_dim", "4096", "--n_heads", "32", "--n_layers", "32", "--context_length", "32768",
    "--n_kv_groups", "4", "--batch_size", "1", "--dtype", "bf16", "--sliding_window_size", "1024",
    "--swa_ratio", "5:1")                                                        # README
run(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "2",
    "--sliding_window_size", "1024")                                             # minimal
run(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "1",
    "--sliding_window_size", "1024", "--context_length", "204", "--dtype", "fp32",
    "--swa_ratio", "2:1")                                                        # = ch04_swa defaults
run(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "1",
    "--sliding_window_size", "16", "--context_length", "44", "--dtype", "fp32", "--swa_ratio", "2:1")
run(E_SWA, "--emb_dim", "4096", "--n_heads", "48", "--n_layers", "36", "--n_kv_groups", "4",
    "--sliding_window_size", "2048", "--swa_ratio", "5:1", "--context_length", "131072")
run(E_SWA, "--emb_dim", "1000", "--n_heads", "7", "--n_layers", "13", "--n_kv_groups", "7",
    "--sliding_window_size", "333", "--swa_ratio", "3:2", "--dtype", "int8", "--batch_size", "3")
run(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "7", "--n_kv_groups", "3",
    "--sliding_window_size", "100", "--swa_ratio", "0:1")
run(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "7", "--n_kv_groups", "3",
    "--sliding_window_size", "100", "--swa_ratio", " 1 : 5 ")
run(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "5", "--n_kv_groups", "4",
    "--sliding_window_size", "-10", "--swa_ratio", "10:3", "--dtype", "fp8")
run(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "2",
    "--sliding_window_size", "4096", "--context_length", "1024", "--swa_ratio", "+1:0")
run(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "-7", "--n_kv_groups", "2",
    "--sliding_window_size", "64", "--swa_ratio", "5:1")      # Python floor // and %
run(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "2",
    "--sliding_window_size", "64", "--swa_ratio", "1_0:0_1")  # int() accepts underscores
err(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "2",
    "--sliding_window_size", "64", "--swa_ratio", "0:0")
err(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "2",
    "--sliding_window_size", "64", "--swa_ratio", "5")
err(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "5",
    "--sliding_window_size", "64")

E_MOE = "ch04_memory_estimator_moe"
run(E_MOE, "--emb_dim", "7168", "--hidden_dim", "14336", "--ffn_type", "swiglu",
    "--num_experts", "8", "--top_k", "2", "--match_dense")                       # README
run(E_MOE, "--emb_dim", "768", "--hidden_dim", "3072")                          # minimal
run(E_MOE, "--emb_dim", "768", "--hidden_dim", "3072", "--match_dense")
run(E_MOE, "--emb_dim", "768", "--hidden_dim", "384", "--num_experts", "8", "--dtype", "fp32")
run(E_MOE, "--emb_dim", "4096", "--hidden_dim", "32768", "--num_experts", "32", "--top_k", "2",
    "--match_dense", "--dtype", "fp32")
run(E_MOE, "--emb_dim", "1000", "--hidden_dim", "333", "--ffn_type", "gelu", "--num_experts", "3",
    "--top_k", "5", "--match_dense", "--dtype", "int8")
run(E_MOE, "--emb_dim", "100", "--hidden_dim", "7", "--ffn_type", "gelu", "--num_experts", "0",
    "--top_k", "0", "--dtype", "fp8")
run(E_MOE, "--emb_dim", "7168", "--hidden_dim", "28672", "--num_experts", "256", "--top_k", "8",
    "--match_dense")
run(E_MOE, "--emb_dim", "768", "--hidden_dim", "3072", "--num_experts", "12", "--match_dense")  # .5 rounding
run(E_MOE, "--emb_dim", "64", "--hidden_dim", "10", "--num_experts", "2", "--match_dense", "--ffn_type", "gelu")
run(E_MOE, "--emb_dim", "64", "--hidden_dim", "12", "--num_experts", "2", "--match_dense", "--ffn_type", "gelu")
run(E_MOE, "--emb_dim", "64", "--hidden_dim", "12", "--num_experts", "2", "--ffn_type", "swiglu", "--match")
run(E_MOE, "--emb_dim", "768", "--hidden_dim", "3072", "--num_experts", "-4", "--top_k", "-1")
err(E_MOE, "--emb_dim", "64", "--hidden_dim", "1", "--num_experts", "200", "--match_dense")
err(E_MOE, "--emb_dim", "768", "--hidden_dim", "3072", "--num_experts", "0", "--match_dense")

# Byte counts above 2^53, where n / 1000**3 (one rounding of the exact quotient) and float(n) / 1e9
# (two) part in the second decimal: 1,158,938,256.53 GB, not .54; 1,839,844,247.71, not .72
run(E_MOE, "--emb_dim", "261188093", "--hidden_dim", "1479059584", "--dtype", "fp8", "--num_experts", "1", "--top_k", "1")
run(E_GQA, "--context_length", "1241718000", "--emb_dim", "33866", "--n_heads", "25", "--n_layers", "405",
    "--n_kv_groups", "1", "--batch_size", "27", "--dtype", "bf16")

# Arguments no case above uses, drawn once (seed 18): the estimators must match for any.
_rng = random.Random(18)
for _ in range(8):
    h = _rng.choice([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 64, 96, 128])
    g = _rng.choice([d for d in range(1, h + 1) if h % d == 0])
    common = ["--emb_dim", str(_rng.randint(1, 16384)), "--n_heads", str(h), "--n_layers", str(_rng.randint(1, 128)),
              "--n_kv_groups", str(g), "--context_length", str(_rng.choice([1, 77, 2048, 8191, 65536, 1 << 20])),
              "--batch_size", str(_rng.randint(1, 64)), "--dtype", _rng.choice(["fp32", "bf16", "fp16", "fp8", "int8"])]
    run(E_GQA, *common)
    run(E_MLA, *common, "--latent_dim", str(_rng.randint(1, 4096)))
    run(E_SWA, *common, "--sliding_window_size", str(_rng.randint(1, 70000)),
        "--swa_ratio", f"{_rng.randint(0, 9)}:{_rng.randint(1, 4)}")
    run(E_MOE, "--emb_dim", str(_rng.randint(1, 16384)), "--hidden_dim", str(_rng.randint(1, 65536)),
        "--ffn_type", _rng.choice(["gelu", "swiglu"]), "--num_experts", str(_rng.randint(1, 512)),
        "--top_k", str(_rng.randint(1, 16)), "--dtype", _rng.choice(["fp32", "bf16", "int8"]),
        *(["--match_dense"] if _rng.random() < 0.5 else []))
EST = [E_GQA, E_MLA, E_SWA, E_MOE]
for p in EST:
    err(p)                                   # missing required
    err(p, "--dtype", "fp64")
    err(p, "--emb_dim", "x")
    err(p, "--emb_dim", "768", "--bogus")
err(E_MOE, "--emb_dim", "768", "--hidden_dim", "3072", "--ffn_type", "relu")
err(E_MOE, "--emb_dim", "768", "--hidden_dim", "3072", "--match_dense", "--match")
err(E_SWA, "--emb_dim", "768", "--n_heads", "12", "--n_layers", "12", "--n_kv_groups", "2")

# the same help/usage with argv[0] = the llmfs program name
LLMFS_PROG = []
for p in GPT + EST:
    LLMFS_PROG.append((p, ["--help"], "err"))
    LLMFS_PROG.append((p, ["-h"], "err"))
    LLMFS_PROG.append((p, ["--bogus"], "err"))


def fname(prog, argv, llmfs_prog):
    name = prog + "__" + ("_".join(argv) if argv else "defaults")
    name = name.replace("/", "%2F").replace(" ", "%20")
    if name.endswith("__"):
        name += "%EMPTY"
    return name + (".prog_llmfs" if llmfs_prog else "")


def without_machine_paths(text):
    """`text` with the absolute folders of this run replaced by placeholders: the checkout by BOOK,
    the folder of this script and script_reference.py by GOLDENS. Python names a file in a
    traceback by the path it was run or compiled under: both are absolute here (REF, BOOK)."""
    for folder, placeholder in ((BOOK, "BOOK"), (HERE, "GOLDENS")):
        text = text.replace(folder + os.sep, placeholder + "/")
    return text


def main():
    global BOOK
    book, argv = book_checkout.argument(
        "make_script_goldens.py BOOK [REGEX] [--force] [--timings FILE]", "ch04/04_gqa")
    BOOK = os.path.abspath(book)
    timings = None
    if "--timings" in argv:
        k = argv.index("--timings")
        if k + 1 >= len(argv):
            sys.stderr.write("make_script_goldens.py: --timings needs a FILE\n")
            sys.exit(2)
        timings, argv = argv[k + 1], argv[:k] + argv[k + 2:]
    pat = re.compile(argv[0]) if argv and not argv[0].startswith("--") else None
    force = "--force" in argv
    os.makedirs(OUT, exist_ok=True)
    env = dict(os.environ, OPENBLAS_CORETYPE="Haswell", COLUMNS="80", OMP_NUM_THREADS="1")
    env.pop("LINES", None)
    index_path = os.path.join(OUT, "INDEX.tsv")
    index = {}
    if os.path.exists(index_path):
        with open(index_path, encoding="utf-8") as f:
            for line in f.read().splitlines()[1:]:
                index[line.split("\t")[4]] = line
    all_cases = [(p, a, k, False) for p, a, k in CASES] + [(p, a, k, True) for p, a, k in LLMFS_PROG]
    seen = set()
    for prog, argv, kind, llmfs_prog in all_cases:
        base = fname(prog, argv, llmfs_prog)
        assert base not in seen, base
        seen.add(base)
        out_file = base + ".txt"
        if pat and not pat.search(base):
            continue
        if not force and out_file in index and os.path.exists(os.path.join(OUT, out_file)):
            continue
        cmd = [sys.executable, REF, BOOK, prog] + argv
        if llmfs_prog:
            cmd = [sys.executable, REF, BOOK, "--prog", prog.split("@")[0], prog] + argv
        t0 = time.time()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        wall = time.time() - t0
        stderr = without_machine_paths(p.stderr)
        with open(os.path.join(OUT, out_file), "w", encoding="utf-8") as f:
            f.write(p.stdout)
        err_file = "-"
        if kind == "err" or p.returncode != 0 or (p.stderr and not prog.startswith("ch04_")) \
                or (p.stderr and "memory_estimator" in prog):
            err_file = base + ".stderr.txt"
            with open(os.path.join(OUT, err_file), "w", encoding="utf-8") as f:
                f.write(stderr)
        argv0 = prog.split("@")[0] if llmfs_prog else "(book file name)"
        note = ""
        if p.returncode == 1:
            note = "exception: " + (stderr.strip().splitlines() or [""])[-1]
        elif p.returncode == 2:
            note = "argparse: " + (stderr.strip().splitlines() or [""])[-1]
        index[out_file] = "\t".join([prog, json.dumps(argv), argv0, str(p.returncode),
                                     out_file, err_file, note])
        if timings and (prog in GPT or "@" in prog):
            if p.returncode == 0:
                with open(timings, "a", encoding="utf-8") as f:
                    f.write("\t".join([prog, json.dumps(argv), f"{wall:.1f}",
                                       stderr.strip().replace("\n", " | ")]) + "\n")
        print(f"{p.returncode} {wall:6.1f}s {out_file}", flush=True)
        with open(index_path, "w", encoding="utf-8") as f:
            f.write("program\targv\targv0\texit\tstdout\tstderr\tnote\n")
            order = [fname(p_, a_, l_) + ".txt" for p_, a_, k_, l_ in all_cases]
            for key in order:
                if key in index:
                    f.write(index[key] + "\n")


if __name__ == "__main__":
    main()
