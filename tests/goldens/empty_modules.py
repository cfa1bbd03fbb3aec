"""Empty stand-ins for modules the book's files import but the code a golden script runs never
touches (tensorflow, tqdm, requests, tiktoken, matplotlib: not all of them are installed here).
install(*names) puts an empty module under each name that does not import, with `tqdm = None`
(for gpt_download.py's `from tqdm import tqdm`); a module that imports is left as it is."""
import sys
import types


def install(*names):
    for name in names:
        try:
            __import__(name)
        except ImportError:
            stub = types.ModuleType(name)
            stub.tqdm = None
            sys.modules[name] = stub
