"""print(array) of float32 NumPy arrays, as NumPy prints them: the reference for common/torch/numpy_print
(book 5.5 prints OpenAI's token embeddings with print(params["wte"])).

    /usr/bin/python3 tests/goldens/make_numpy_print_goldens.py > data/tests/numpy_print_cases.txt

Each case: the array's shape, its float32 values (bit patterns, 8 hex digits, row-major) and str(array)
line by line. Default print options; NumPy's version is in the file's first line (1.24 here; the
rules of arrayprint.py used, legacy=False, are those of NumPy 2.x too).
"""
import numpy as np


def cases():
    rng = np.random.default_rng(20261207)
    f = np.float32
    yield "small", np.array([[0.1, -0.2, 0.3], [1.5, 2.0, -3.25]], dtype=f)
    yield "integers_and_halves", np.array([1.0, 0.5, 2.0, -4.0, 0.0], dtype=f)
    yield "exp_small", np.array([1e-5, 2.5e3, 0.5], dtype=f)
    yield "exp_ratio", np.array([0.001, 2.0, -1.5], dtype=f)
    yield "exp_large", np.array([1e8, -3.0, 12345.678], dtype=f)
    yield "exp_negative_mantissas", np.array([-1.2345678e-7, 3.0e-6, -9.87654321e-5], dtype=f)
    yield "zeros", np.zeros((2, 2), dtype=f)
    yield "zeros_and_values", np.array([0.0, -0.0, 0.25, -0.125], dtype=f)
    yield "ties", np.array([1 / 512, 3 / 512, 0.5, 1 / 1024], dtype=f)
    yield "large_positional", np.array([1234567.0, 0.5, -98765.4], dtype=f)
    yield "wrapped_row", (rng.standard_normal(30) * 0.3).astype(f)
    yield "wrapped_matrix", (rng.standard_normal((4, 12)) * 0.3).astype(f)
    yield "rounded_digits", (rng.standard_normal((5, 5)) * 0.1).astype(f)
    yield "three_d", (rng.standard_normal((2, 3, 4)) * 0.5).astype(f)
    yield "summarized_matrix", (rng.standard_normal((40, 30)) * 0.1).astype(f)
    yield "summarized_wide", (rng.standard_normal((7, 150)) * 0.02).astype(f)
    yield "summarized_row", (rng.standard_normal(1200) * 0.2).astype(f)
    yield "summarized_three_d", (rng.standard_normal((11, 10, 10)) * 0.3).astype(f)
    yield "summarized_exp", (rng.standard_normal((35, 30)) * 1e-5).astype(f)
    yield "exactly_threshold", (rng.standard_normal((10, 100)) * 0.1).astype(f)


def main():
    print(f"# numpy_print_cases.txt: made by make_numpy_print_goldens.py (NumPy {np.__version__}); never edit by hand.")
    print("# 'case NAME': 'shape D...', 'values' then the float32 bit patterns (8 per line), 'str' then str(array).")
    for name, a in cases():
        assert a.dtype == np.float32
        print(f"case {name}")
        print("shape " + " ".join(str(d) for d in a.shape))
        print("values")
        bits = [f"{int(b):08x}" for b in a.reshape(-1).view(np.uint32)]
        for i in range(0, len(bits), 8):
            print(" ".join(bits[i:i + 8]))
        print("str")
        print(str(a))
        print("end")


if __name__ == "__main__":
    main()
