"""The book's KV-cache tests (ch04/03_kv-cache/tests.py) run under real PyTorch 1.13, printing the
concrete data each test checks, so the C++ side (tests/kv_cache_optimized_test.cpp) asserts the
same things:

    BOOK=/path/to/LLMs-from-scratch   # a checkout of github.com/rasbt/LLMs-from-scratch
    OPENBLAS_CORETYPE=Haswell /usr/bin/python3 tests/goldens/kv_optimized_cases.py $BOOK \
        > data/tests/kv_optimized_cases.txt

tests.py is imported unmodified from the checkout (with its folder on sys.path, as pytest would);
stand-ins: tiktoken -> tiktoken_stub (GPT-2 encoder), pytest (not installed) -> a stub whose
mark.parametrize only records the parameter list. Each test function is then called as pytest
would call it (file order; parametrized cases in list order), so its own asserts run. To see the
data, the generate functions the tests call are wrapped (in tests.py's namespace) to record their
inputs and outputs, and a global forward hook records every call of the optimized GPTModel
(chunk length, the model's ptr_current_pos and block 0's attention ptr_cur after the call, and
the cache shape). Device: tests.py picks cuda if available, else cpu: cpu here, no patch.

Output format (one fact a line):
    ## <test name>[<param>]
    call <generate fn>: max_new_tokens=.. context_size=.. use_cache=..
    input: <ids>
    output: <ids>
    forward: len=<chunk> ptr_current_pos=<after> att0.ptr_cur=<after> cache=<shape>   (optimized model only)
    assert: <what tests.py asserts> -> True
    PASSED
"""
import os
import sys
import types

sys.dont_write_bytecode = True  # write nothing into the book's checkout

import torch  # noqa: E402

import book_checkout  # noqa: E402
import tiktoken_stub  # noqa: E402



def install_pytest_stub():
    pytest = types.ModuleType("pytest")

    class _Mark:
        @staticmethod
        def parametrize(name, values):
            def deco(fn):
                fn.parametrize = (name, list(values))
                return fn
            return deco

    pytest.mark = _Mark()
    sys.modules["pytest"] = pytest


def ids(t):
    return " ".join(str(int(v)) for v in t.reshape(-1).tolist())


def main():
    book, options = book_checkout.argument("kv_optimized_cases.py BOOK", "ch04/03_kv-cache/tests.py")
    if options:
        sys.stderr.write("usage: kv_optimized_cases.py BOOK\n")
        sys.exit(2)
    tiktoken_stub.install()
    install_pytest_stub()
    sys.path.insert(0, os.path.join(book, "ch04", "03_kv-cache"))
    import tests  # the book's tests.py
    import gpt_with_kv_cache_optimized as kv2

    log = []

    def wrap(name):
        orig = getattr(tests, name)

        def wrapper(*args, **kwargs):
            model = kwargs.get("model", args[0] if args else None)
            idx = kwargs.get("idx", args[1] if len(args) > 1 else None)
            opts = {k: v for k, v in kwargs.items() if k not in ("model", "idx")}
            if name != "generate_text_simple" and "use_cache" not in opts:
                opts["use_cache"] = "True (default)"
            if "context_size" not in opts:
                opts["context_size"] = "None (default)"
            log.append(f"call {name}: " + " ".join(f"{k}={v}" for k, v in sorted(opts.items())))
            log.append(f"input: {ids(idx)}")
            out = orig(*args, **kwargs)
            log.append(f"output: {ids(out)}")
            log.append(f"output length: {out.shape[1]}")
            return out
        setattr(tests, name, wrapper)

    for name in ("generate_text_simple", "generate_text_simple_cachedKV1",
                 "generate_text_simple_cachedKV2"):
        wrap(name)

    def trace(module, inp, out):
        if isinstance(module, kv2.GPTModel):
            att = module.trf_blocks[0].att
            cache = tuple(att.cache_k.shape) if att.cache_k is not None else None
            log.append(f"forward: len={inp[0].shape[1]} ptr_current_pos={module.ptr_current_pos} "
                       f"att0.ptr_cur={getattr(att, 'ptr_cur', None)} cache={cache}")

    hook = torch.nn.modules.module.register_module_forward_hook(trace)

    cases = []
    for fname in ("test_gpt_model_equivalence_not_cached", "test_gpt_model_equivalence_cached",
                  "test_context_overflow_bug", "test_prefill_chunking_basic"):
        fn = getattr(tests, fname)
        if hasattr(fn, "parametrize"):
            pname, values = fn.parametrize
            for v in values:
                cases.append((f"{fname}[{v.__module__}.{v.__name__}]", fn, {pname: v}))
        else:
            cases.append((fname, fn, {}))

    kv2_calls_not_cached = []
    for title, fn, kwargs in cases:
        log.clear()
        fn(**kwargs)
        print(f"## {title}")
        lines = list(log)
        if title.startswith("test_gpt_model_equivalence_not_cached") and \
                kwargs["ModelClass"] is tests.GPTModelKV2:
            # 34 full forwards without cache: keep the trace short
            kv2_calls_not_cached = [ln for ln in lines if ln.startswith("forward:")]
            lines = [ln for ln in lines if not ln.startswith("forward:")]
            lines.append(f"forward: {len(kv2_calls_not_cached)} calls without cache, "
                         f"first: {kv2_calls_not_cached[0][9:]}, last: {kv2_calls_not_cached[-1][9:]}")
        for ln in lines:
            print(ln)
        if fname_results := getattr(fn, "results", None):
            if len(fname_results) == 3 and kwargs["ModelClass"] is tests.GPTModelKV2:
                base_name, base = fname_results[0]
                for other_name, other in fname_results[1:]:
                    print(f"assert: torch.equal({base_name}, {other_name}) -> "
                          f"{torch.equal(base, other)}")
        if title == "test_context_overflow_bug":
            print("assert: (none: passes if no exception; 5 input + min(10, 10 - 5) = 10 tokens)")
        if title == "test_prefill_chunking_basic":
            print("assert: token_ids.shape[1] == 12 -> True")
            print("assert: torch.equal(token_ids[:, :10], input_tokens) -> True")
        print("PASSED")
        print()

    hook.remove()

    # Informational (not in tests.py): the prefill-chunking case without the cache, i.e. full
    # causal attention over all 10 + k tokens; the sliding window of 4 changes the result.
    torch.manual_seed(123)
    cfg = dict(tests.GPT_CONFIG_124M, context_length=20, kv_window_size=4)
    model = kv2.GPTModel(cfg).eval()
    inp = torch.randint(0, 50257, (1, 10))
    full = kv2.generate_text_simple_cached(model, inp, 2, use_cache=False)
    print("## info: test_prefill_chunking_basic's model and input, use_cache=False (not in tests.py)")
    print(f"input: {ids(inp)}")
    print(f"output: {ids(full)}")


if __name__ == "__main__":
    main()
