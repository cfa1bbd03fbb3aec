#!/usr/bin/python3
"""Generate data/tests/tokenizer_cases.txt, the goldens of llmfs's GPT-2 tokenizer.

How the goldens were generated:

    apt-get install -y python3-regex          # Debian's build of the `regex` module
    /usr/bin/python3 tests/goldens/make_tokenizer_goldens.py

The reference is OpenAI's original GPT-2 tokenizer, src/encoder.py of github.com/openai/gpt-2
(bytes_to_unicode, get_pairs, Encoder.bpe/encode/decode), re-typed below unchanged except for
names. tiktoken's "gpt2" encoding is defined to give the same ids (it is built from the same
encoder.json/vocab.bpe and asserts that its ranks equal encoder.json's), but tiktoken cannot be
installed here. Like tiktoken's `encode(text, allowed_special={"<|endoftext|>"})`, which the book
uses, the text is first split on "<|endoftext|>", each ordinary part is encoded on its own and the
special token becomes id 50256.

The script reads data/gpt2/encoder.json and vocab.bpe (checking data/gpt2/SHA256SUMS), asserts the
book's examples, and writes one case per line (fields separated by a TAB; text as hex UTF-8):

    encode <TAB> name <TAB> hex(UTF-8 text) <TAB> ids separated by spaces
    decode <TAB> name <TAB> ids separated by spaces <TAB> hex(UTF-8 of the decoded text)

Decoded text is `bytes.decode("utf-8", errors="replace")`, so decode cases whose bytes are not
valid UTF-8 pin down Python's U+FFFD substitution. Output is deterministic (fixed seed).
"""

import hashlib
import importlib.metadata
import json
import os
import random
import sys

import regex as re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPT2_DIR = os.path.join(ROOT, "data", "gpt2")
OUT_PATH = os.path.join(ROOT, "data", "tests", "tokenizer_cases.txt")
SPECIAL = "<|endoftext|>"
END_OF_TEXT = 50256


# ---- OpenAI gpt-2 src/encoder.py ----------------------------------------------------------------

def bytes_to_unicode():
    """Map every byte to a printable unicode character (encoder.py's bytes_to_unicode)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(2**8):
        if b not in bs:
            bs.append(b)
            cs.append(2**8 + n)
            n += 1
    cs = [chr(n) for n in cs]
    return dict(zip(bs, cs))


def get_pairs(word):
    """Set of adjacent symbol pairs in a word (encoder.py's get_pairs)."""
    pairs = set()
    prev_char = word[0]
    for char in word[1:]:
        pairs.add((prev_char, char))
        prev_char = char
    return pairs


class Encoder:
    def __init__(self, encoder, bpe_merges):
        self.encoder = encoder
        self.decoder = {v: k for k, v in self.encoder.items()}
        self.byte_encoder = bytes_to_unicode()
        self.byte_decoder = {v: k for k, v in self.byte_encoder.items()}
        self.bpe_ranks = dict(zip(bpe_merges, range(len(bpe_merges))))
        self.cache = {}
        self.pat = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")

    def bpe(self, token):
        if token in self.cache:
            return self.cache[token]
        word = tuple(token)
        pairs = get_pairs(word)
        if not pairs:
            return token
        while True:
            bigram = min(pairs, key=lambda pair: self.bpe_ranks.get(pair, float("inf")))
            if bigram not in self.bpe_ranks:
                break
            first, second = bigram
            new_word = []
            i = 0
            while i < len(word):
                try:
                    j = word.index(first, i)
                    new_word.extend(word[i:j])
                    i = j
                except ValueError:
                    new_word.extend(word[i:])
                    break
                if word[i] == first and i < len(word) - 1 and word[i + 1] == second:
                    new_word.append(first + second)
                    i += 2
                else:
                    new_word.append(word[i])
                    i += 1
            word = tuple(new_word)
            if len(word) == 1:
                break
            pairs = get_pairs(word)
        word = " ".join(word)
        self.cache[token] = word
        return word

    def encode(self, text):
        bpe_tokens = []
        for token in re.findall(self.pat, text):
            token = "".join(self.byte_encoder[b] for b in token.encode("utf-8"))
            bpe_tokens.extend(self.encoder[bpe_token] for bpe_token in self.bpe(token).split(" "))
        return bpe_tokens

    def decode(self, tokens):
        text = "".join([self.decoder[token] for token in tokens])
        return bytearray([self.byte_decoder[c] for c in text]).decode("utf-8", errors="replace")


def get_encoder():
    """encoder.py's get_encoder, reading data/gpt2 after checking SHA256SUMS."""
    expected = {}
    with open(os.path.join(GPT2_DIR, "SHA256SUMS"), encoding="ascii") as f:
        for line in f:
            digest, name = line.split()
            expected[name] = digest
    for name in ("encoder.json", "vocab.bpe"):
        with open(os.path.join(GPT2_DIR, name), "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() == expected[name], name
    with open(os.path.join(GPT2_DIR, "encoder.json"), "r", encoding="utf-8") as f:
        encoder = json.load(f)
    with open(os.path.join(GPT2_DIR, "vocab.bpe"), "r", encoding="utf-8") as f:
        bpe_data = f.read()
    bpe_merges = [tuple(merge_str.split()) for merge_str in bpe_data.split("\n")[1:-1]]
    return Encoder(encoder=encoder, bpe_merges=bpe_merges)


# ---- tiktoken's encode(text, allowed_special={"<|endoftext|>"}) ---------------------------------

ENC = get_encoder()


def encode(text):
    ids = []
    for k, part in enumerate(text.split(SPECIAL)):
        if k:
            ids.append(END_OF_TEXT)
        ids.extend(ENC.encode(part))
    return ids


def decode(ids):
    return ENC.decode(ids)


# ---- the cases --------------------------------------------------------------------------------

BOOK_EXAMPLES = [
    ("Every effort moves you", [6109, 3626, 6100, 345]),
    ("Hello, I am", [15496, 11, 314, 716]),
    ("Hello, do you like tea? <|endoftext|> In the sunlit terraces of someunknownPlace.",
     [15496, 11, 466, 345, 588, 8887, 30, 220, 50256, 554, 262, 4252, 18250, 8812, 2114, 286, 617,
      34680, 27271, 13]),
]

# Python's `regex` \s is Unicode's White_Space property; these are the characters where engines
# tend to disagree (\x1c-\x1f are str.isspace() but not White_Space; U+180E left White_Space in
# Unicode 6.3 but PCRE2 still counts it; U+200B and U+FEFF are format characters, not spaces).
S_EDGE = ["\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", " ", "\x85", "\xa0",
          "\u1680", "\u180e", "\u2000", "\u2005", "\u200a", "\u200b", "\u2028", "\u2029", "\u202f",
          "\u205f", "\u3000", "\ufeff"]

# Characters assigned in Unicode 15.0 (which the `regex` module knows and PCRE2 10.42, on Unicode
# 14.0, does not): letters from CJK Ext. H, Kawi, Nag Mundari, Cyrillic Ext-D; digits from Kawi,
# Kaktovik numerals, Nag Mundari.
UNICODE15 = ["\U00031350", "\U000323af", "\U00011f04", "\U0001e4d0", "\U0001e030", "\U0002b739",
             "\U00011f50", "\U0001d2c0", "\U0001e4f0"]

ZEN = (
    "Beautiful is better than ugly.\nExplicit is better than implicit.\nSimple is better than complex.\n"
    "Complex is better than complicated.\nFlat is better than nested.\nSparse is better than dense.\n"
    "Readability counts.\nSpecial cases aren't special enough to break the rules.\n"
    "Although practicality beats purity.\nErrors should never pass silently.\n"
    "Unless explicitly silenced.\nIn the face of ambiguity, refuse the temptation to guess.\n"
    "There should be one-- and preferably only one --obvious way to do it.\n"
    "Although that way may not be obvious at first unless you're Dutch.\n"
    "Now is better than never.\nAlthough never is often better than *right* now.\n"
    "If the implementation is hard to explain, it's a bad idea.\n"
    "If the implementation is easy to explain, it may be a good idea.\n"
    "Namespaces are one honking great idea -- let's do more of those!\n"
)

CODE = ('def f(x):\n    """Square."""\n    return x**2  # comment\n\n\n'
        'if __name__ == "__main__":\n\tprint(f(3))\n')

ENCODE_CASES = [
    ("empty string", ""),
    # spaces
    ("single space", " "),
    ("two spaces", "  "),
    ("three spaces", "   "),
    ("ten spaces", " " * 10),
    ("leading space", " a"),
    ("trailing space", "a "),
    ("two leading spaces", "  a"),
    ("two trailing spaces", "a  "),
    ("inner space runs", " a b  c   d    e "),
    ("spaces before punctuation", "wait   !"),
    ("spaces before digits", "x   42"),
    # tabs and newlines
    ("tab", "\t"),
    ("two tabs", "\t\t"),
    ("tab between words", "a\tb"),
    ("space tab space", " \t "),
    ("tab then word", "\tindented"),
    ("newline", "\n"),
    ("crlf", "\r\n"),
    ("two newlines", "\n\n"),
    ("paragraph break", "first\n\nsecond"),
    ("crlf lines", "line1\r\nline2\r\n"),
    ("newline space newline", "\n \n"),
    ("space newline space", "a \n b"),
    ("spaces around newline", "  \n  x"),
    ("trailing newline", "ends with a newline\n"),
    ("whitespace mix", " \t\n\r\x0b\x0c word"),
    ("code", CODE),
    # digits and numbers
    ("digits", "123"),
    ("ten digits", "1234567890"),
    ("long number", "12345678901234567890123456789012345678901234567890"),
    ("decimal", "3.14159265358979"),
    ("spaced number", " 42"),
    ("thousands", "1,000,000"),
    ("letter digit", "x2"),
    ("digit letter", "2x"),
    ("year", "In 2019, GPT-2 had 1.5B parameters."),
    ("arabic-indic digits", "\u0663\u0664\u0665"),
    ("roman numeral letter number", "\u216b"),
    ("vulgar fraction and superscript", "\u00bd \u00b2"),
    ("fullwidth digits", "\uff11\uff12\uff13"),
    # contractions
    ("contraction 's", "it's"),
    ("contraction 't", "don't"),
    ("contraction 're", "they're"),
    ("contraction 've", "we've"),
    ("contraction 'm", "I'm"),
    ("contraction 'll", "you'll"),
    ("contraction 'd", "he'd"),
    ("uppercase 'S is not a contraction", "IT'S"),
    ("uppercase 'T is not a contraction", "DON'T"),
    ("mixed case 'Re", "They'Re"),
    ("uppercase 'LL and 'VE", "WE'LL WE'VE"),
    ("bare 's", "'s"),
    ("bare 'S", "'S"),
    ("space 's", " 's"),
    ("double quote 's", "''s"),
    ("rock'n'roll", "rock'n'roll"),
    ("curly apostrophe", "it\u2019s"),
    ("o'clock", "o'clock"),
    ("stacked contractions", "y'all'd've"),
    ("let's", "Let's go"),
    ("'st is 's then t", "'st"),
    ("quoted", "'quoted'"),
    # punctuation
    ("exclamations", "!!!"),
    ("ellipsis", "..."),
    ("interrobang run", "?!?!"),
    ("double dash", "--"),
    ("em dash", "a\u2014b"),
    ("dots between words", "a...b"),
    ("parentheses", "(hello)"),
    ("list", "[1, 2, 3]"),
    ("json", '{"key": "value", "n": [1, 2.5, null]}'),
    ("expression", "x = y + z * 2;"),
    ("include", "#include <stdio.h>"),
    ("url", "https://example.com/path?q=1&r=2#frag"),
    ("email", "someone@example.com"),
    ("C++", "C++17"),
    ("dollars", "$100"),
    ("percent", "100%"),
    ("at signs", "@@@"),
    ("space punctuation", " !!!"),
    ("spaces punctuation", "   !!!"),
    ("equals run", "=" * 16),
    ("underscores", "__init__"),
    ("backslashes", "C:\\path\\to\\file"),
    # accents and scripts
    ("cafe", "caf\u00e9"),
    ("naive", "na\u00efve"),
    ("uber", "\u00fcber"),
    ("unicode accents", "\u00dcn\u00efc\u00f6d\u00e9"),
    ("combining acute", "e\u0301"),
    ("combining in word", "cafe\u0301 au lait"),
    ("stacked combining marks", "a\u0300\u0301\u0302b"),
    ("combining mark after space", " \u0301"),
    ("enye", "ma\u00f1ana"),
    ("greek", "\u0393\u03b5\u03b9\u03ac \u03c3\u03bf\u03c5"),
    ("cyrillic", "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440!"),
    ("hebrew", "\u05e2\u05d1\u05e8\u05d9\u05ea"),
    ("arabic", "\u0627\u0644\u0639\u0631\u0628\u064a\u0629"),
    ("devanagari with vowel signs", "\u0939\u093f\u0928\u094d\u0926\u0940"),
    ("thai", "\u0e44\u0e17\u0e22"),
    ("german sharp s", "Stra\u00dfe"),
    ("ligature", "\ufb01le"),
    # CJK
    ("chinese", "\u4f60\u597d\uff0c\u4e16\u754c"),
    ("japanese", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8"),
    ("korean", "\ud55c\uad6d\uc5b4"),
    ("kanji kana", "\u6f22\u5b57\u304b\u306a\u30ab\u30ca"),
    ("ideographic full stop", "\u3002\u3001"),
    # emoji
    ("emoji", "\U0001f600"),
    ("emoji skin tone", "\U0001f44d\U0001f3fd"),
    ("emoji zwj family", "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"),
    ("rainbow flag", "\U0001f3f3\ufe0f\u200d\U0001f308"),
    ("heart variation selector", "I \u2764\ufe0f NY"),
    ("flag", "\U0001f1fa\U0001f1f8"),
    ("repeated emoji", "\U0001f600\U0001f600\U0001f600"),
    ("space emoji", " \U0001f600"),
    ("emoji between letters", "a\U0001f600b"),
    ("emoji and punctuation", "wow!\U0001f389\U0001f389"),
    # mixed scripts
    ("latin cjk digits", "Hello\u4e16\u754c123"),
    ("latin cyrillic", "abc\u0430\u0431\u0432"),
    ("japanese with numbers", "GPT-2 \u306f 2019 \u5e74"),
    ("superscripts", "x\u00b2+y\u00b2=z\u00b2"),
    ("math symbols", "\u2200x\u2208\u211d: x\u00b2\u22650"),
    # the special token
    ("special alone", SPECIAL),
    ("special between words", "Hello" + SPECIAL + "World"),
    ("special with spaces", "Hello " + SPECIAL + " World"),
    ("special at start", SPECIAL + "start"),
    ("special at end", "end" + SPECIAL),
    ("two specials", SPECIAL + SPECIAL),
    ("space then special", "a " + SPECIAL),
    ("spaces around special", " " + SPECIAL + " "),
    ("newlines around special", "\n" + SPECIAL + "\n"),
    ("truncated special", "<|endoftext"),
    ("almost special", "<|endoftext|"),
    ("spaced special", "<| endoftext |>"),
    ("uppercase special", "<|ENDOFTEXT|>"),
    ("documents", "First document." + SPECIAL + "Second document.\n" + SPECIAL + " Third."),
    # long words and runs
    ("long word", "supercalifragilisticexpialidocious"),
    ("longer word", "antidisestablishmentarianism"),
    ("repeated letter", "a" * 33),
    ("repeated pair", "ab" * 20),
    ("camel case", "someunknownPlace"),
    ("zen of python", ZEN),
]
ENCODE_CASES += [("book: " + text, text) for text, _ in BOOK_EXAMPLES]
for ch in S_EDGE:
    name = "U+%04X" % ord(ch)
    ENCODE_CASES += [
        (name + " alone", ch),
        (name + " between letters", "a" + ch + "b"),
        (name + " twice between words", "word" + ch + ch + "word"),
        (name + " after space before word", "x " + ch + "y"),
        (name + " before space", "x" + ch + " y"),
        (name + " trailing", "end" + ch),
        (name + " before punctuation", ch + "!!"),
        (name + " before 's", ch + "'s"),
    ]
for ch in UNICODE15:
    name = "U+%04X (Unicode 15)" % ord(ch)
    ENCODE_CASES += [
        (name + " alone", ch),
        (name + " between letters", "x" + ch + "y"),
        (name + " between digits", "1" + ch + "2"),
        (name + " doubled before punctuation", ch + ch + "!"),
        (name + " after punctuation", "!" + ch),
        (name + " before 's", ch + "'s"),
        (name + " before ellipsis", ch + "..."),
    ]


def random_texts(rng, count):
    """Strings glued from pieces chosen to exercise every branch of the pre-tokenizer."""
    pieces = (["a", "b", "Z", "the", " the", "ing", "'s", "'S", "'t", "'ll", "'d", "'", "0", "12",
               "345", " ", "  ", "\t", "\n", "\r\n", "!", "?!", "...", "-", "(", "\"", "\u00e9",
               "e\u0301", "\u4e16", "\U0001f600", "\u200d", "\u0663", "\u00bd", SPECIAL, "<|"]
              + S_EDGE + UNICODE15)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(count)]


def random_bytes(rng, count):
    """Byte strings rich in UTF-8 lead bytes, continuation bytes and truncations."""
    interesting = ([0x41, 0x20, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
                    0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xfe,
                    0xff])
    out = []
    for _ in range(count):
        n = rng.randint(1, 8)
        out.append(bytes(rng.choice(interesting) if rng.random() < 0.8 else rng.randrange(256)
                         for _ in range(n)))
    return out


def main():
    for text, ids in BOOK_EXAMPLES:
        assert encode(text) == ids, (text, encode(text), ids)
    assert decode([15496, 11, 314, 716]) == "Hello, I am"

    rng = random.Random(20240601)
    encode_cases = list(ENCODE_CASES)
    encode_cases += [("random mix %d" % k, t) for k, t in enumerate(random_texts(rng, 300))]

    # The id of the single-byte token for each byte value.
    byte_id = {b: ENC.encoder[ENC.byte_encoder[b]] for b in range(256)}

    def byte_ids(data):
        return [byte_id[b] for b in data]

    decode_cases = [
        ("no ids", []),
        ("end of text", [END_OF_TEXT]),
        ("end of text between words", [15496, END_OF_TEXT, 314]),
        ("lone continuation byte 0x80", byte_ids(b"\x80")),
        ("lone lead byte 0xE2", byte_ids(b"\xe2")),
        ("truncated 3-byte char E2 80", byte_ids(b"\xe2\x80")),
        ("truncated 4-byte char F0 9F 98", byte_ids(b"\xf0\x9f\x98")),
        ("truncated char then ascii", byte_ids(b"\xe2\x80a")),
        ("ascii lone continuation ascii", byte_ids(b"a\x80b")),
        ("overlong C0 AF", byte_ids(b"\xc0\xaf")),
        ("overlong E0 80 80", byte_ids(b"\xe0\x80\x80")),
        ("overlong F0 80 80 80", byte_ids(b"\xf0\x80\x80\x80")),
        ("surrogate ED A0 80", byte_ids(b"\xed\xa0\x80")),
        ("above U+10FFFF F4 90 80 80", byte_ids(b"\xf4\x90\x80\x80")),
        ("F5 lead byte", byte_ids(b"\xf5\x80\x80\x80")),
        ("FF byte", byte_ids(b"\xff")),
        ("two continuation bytes", byte_ids(b"\x80\xbf")),
        ("euro sign split into bytes", byte_ids("\u20ac".encode())),
        ("emoji split into bytes", byte_ids("\U0001f600".encode())),
        ("emoji missing last byte then emoji",
         byte_ids("\U0001f600".encode()[:3] + "\U0001f600".encode())),
        ("lead byte before valid char", byte_ids(b"\xe2" + "\u00e9".encode())),
    ]
    # Tokens 0..255 in encoder.json are not the byte values: pick some multi-byte tokens too.
    emoji_ids = encode("\U0001f600\U0001f44d")
    decode_cases.append(("emoji tokens", emoji_ids))
    decode_cases += [("emoji token prefix %d" % k, emoji_ids[:k]) for k in range(1, len(emoji_ids))]
    decode_cases += [("random bytes %d" % k, byte_ids(b)) for k, b in enumerate(random_bytes(rng, 200))]
    decode_cases += [("random ids %d" % k,
                      [rng.randrange(END_OF_TEXT + 1) for _ in range(rng.randint(1, 6))])
                     for k in range(100)]

    lines = [
        "# GPT-2 tokenizer goldens for llmfs (common/tokenizer_test.cpp). DO NOT EDIT: generated by",
        "# /usr/bin/python3 tests/goldens/make_tokenizer_goldens.py with OpenAI's encoder.py algorithm,",
        "# Python %s, regex %s." % (sys.version.split()[0], importlib.metadata.version("regex")),
        "# encode<TAB>name<TAB>hex(UTF-8 text)<TAB>ids    (text split on <|endoftext|> = 50256)",
        "# decode<TAB>name<TAB>ids<TAB>hex(UTF-8 text)    (bytes.decode('utf-8', errors='replace'))",
    ]
    names = set()
    for name, text in encode_cases:
        assert "\t" not in name and name not in names, name
        names.add(name)
        ids = encode(text)
        assert decode(ids) == text, name
        lines.append("encode\t%s\t%s\t%s" % (name, text.encode("utf-8").hex(), " ".join(map(str, ids))))
    for name, ids in decode_cases:
        assert "\t" not in name and name not in names, name
        names.add(name)
        lines.append("decode\t%s\t%s\t%s" % (
            name, " ".join(map(str, ids)), decode(ids).encode("utf-8").hex()))
    with open(OUT_PATH, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d encode and %d decode cases to %s" % (len(encode_cases), len(decode_cases), OUT_PATH))


if __name__ == "__main__":
    main()
