"""The book's checkout, as every golden script here takes it: the first positional argument, BOOK.

BOOK is a checkout of github.com/rasbt/LLMs-from-scratch (the goldens were made from its commit
28c65cd unless a script's row in docs/programs.md names another). It is the first command-line argument
that does not start with '-'. Without it, or when the checkout lacks the file the script reads,
the script prints its usage line on stderr and exits 2. Nothing here writes anything.
"""
import os
import sys

REPOSITORY = "github.com/rasbt/LLMs-from-scratch"
COMMIT = "28c65cd"


def argument(usage, needs, commit=COMMIT):
    """(BOOK, the other arguments in their order). `usage` is the script's usage line without
    "usage: "; `needs` a path inside the checkout that must exist (the file or folder the script
    reads), so that a wrong folder is reported here and not by a traceback later."""
    args = sys.argv[1:]
    i = next((k for k, a in enumerate(args) if not a.startswith("-")), None)
    book = None if i is None else args[i]
    if book is None or not os.path.exists(os.path.join(book, needs)):
        why = "" if book is None else f"not a checkout of the book: {os.path.join(book, needs)} does not exist\n"
        sys.stderr.write(f"{why}usage: {usage}\n"
                         f"  BOOK: a checkout of {REPOSITORY} (the goldens: commit {commit})\n")
        sys.exit(2)
    return book, args[:i] + args[i + 1:]
