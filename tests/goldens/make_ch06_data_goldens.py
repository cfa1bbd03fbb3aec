"""Chapter 6's data goldens: a small SMS-like collection made here, and what the book's own
create_balanced_dataset and random_split (ch06/01_main-chapter-code/gpt_class_finetune.py, imported
from the checkout BOOK) make of it, as pandas reads and writes it.

Writes into data/tests/ch06/:
  sms_small.tsv              the collection: 44 ham, 14 spam, with the parser's hard cases (commas,
                             quotes inside and around texts, a quoted text spanning lines, "NA", an
                             empty text, a CRLF line, blank lines, non-ASCII letters)
  sms_small.zip              the same as SMSSpamCollection (plus a readme), deflated, as UCI ships it
  sms_small_stored.zip       the same, stored
  not_sms.zip                a zip without SMSSpamCollection (the program must refuse it)
  {train,validation,test}.csv  random_split(create_balanced_dataset(df) with labels mapped, 0.7, 0.1)
                             written by to_csv(index=None), as the notebook does
  all.csv                    every row, labels mapped, written the same way (the hard cases)
  loader_cases.txt           the book's SpamDataset (tokenized by tiktoken_stub.py: OpenAI's GPT-2
                             encoder) on those CSVs and its DataLoaders after torch.manual_seed(123),
                             as the notebook makes them (batch size 8, the training loader shuffled and
                             dropping its last batch), two epochs each; SpamDataset(max_length=6) on
                             train.csv; test.csv holds a NaN text, which the book's class refuses
  permutation_cases.txt      np.random.RandomState(123).permutation(n) for a few n (pandas' sample)

usage: /usr/bin/python3 tests/goldens/make_ch06_data_goldens.py BOOK
"""
import io
import os
import pathlib
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book_checkout  # noqa: E402

SCRIPT = "ch06/01_main-chapter-code/gpt_class_finetune.py"
BOOK, _ = book_checkout.argument("make_ch06_data_goldens.py BOOK", SCRIPT)
OUT = pathlib.Path(__file__).resolve().parents[2] / "data" / "tests" / "ch06"

HAM = [
    "Ok lar... Joking wif u oni...",
    "U dun say so early hor... U c already then say...",
    "Nah I don't think he goes to usf, he lives around here though",
    "Even my brother is not like to speak with me. They treat me like aids patent.",
    "As per your request 'Melle Melle' has been set as your callertune",
    "I'm gonna be home soon and i don't want to talk about this stuff anymore tonight, k?",
    "I've been searching for the right words to thank you for this breather.",
    "I HAVE A DATE ON SUNDAY WITH WILL!!",
    "Oh k...i'm watching here:)",
    "Eh u remember how 2 spell his name... Yes i did. He v naughty make until i v wet.",
    "Fine if that\u2019s the way u feel. That\u2019s the way its gotta b",
    "Is that seriously how you spell his name?",
    "I\u2018m going to try for 2 months ha ha only joking",
    "So \u00fc pay first lar... Then when is da stock comin...",
    "Aft i finish my lunch then i go str down lor. Ard 3 smth lor. U finish ur lunch already?",
    "Ffffffffff. Alright no way I can meet up with you sooner?",
    "Just forced myself to eat a slice. I'm really not hungry tho. This sucks. Mark is getting worried.",
    "Lol your always so convincing.",
    "Did you catch the bus ? Are you frying an egg ? Did you make a tea? Are you eating your mom's left over dinner ? Do you feel my Love ?",
    "I'm back &amp; we're packing the car now, I'll let you know if there's room",
    "Ahhh. Work. I vaguely remember that! What does it feel like? Lol",
    "Wait that's still not all that clear, were you not sure about me being sarcastic or that that's why x doesn't want to live with us",
    "Yeah he got in at 2 and was v apologetic. n had fallen out and she was actin like spoilt child",
    "K tell me anything about you.",
    "For fear of fainting with the of all that housework you just did? Quick have a cuppa",
    "Yup... Ok i go home look at the timings then i msg \u00fc again... Xuhui going to learn on 2nd may too but her lesson is at 8am",
    "Oops, I'll let you know when my roommate's done",
    "I see the letter B on my car",
    "Anything lor... U decide...",
    "Hello! How's you and how did saturday go? I was just texting to see if you'd decided to do anything tomo.",
    "Pls go ahead with watts. I just wanted to be sure. Do have a great weekend. Abiola",
    "Did I forget to tell you ? I want you , I need you, I crave you ...",
    "He said \"don't worry\" and left",
    "\"Gud mrng dear hav a nice day\"",
    "\"Wah lucky man... Then can save money...\" Hee...",
    "\"A quoted text\nthat spans\ttwo lines, with a tab\"",
    "\"He said \"\"hi\"\" to me\"",
    "NA",
    "",
    "null",
    "Just got to  &lt;#&gt;",
    "The word \"Checkmate\" in chess comes from the Persian phrase \"Shah Maat\"",
    "Sorry, I'll call later",
    "Ok...",
]
SPAM = [
    "Free entry in 2 a wkly comp to win FA Cup final tkts 21st May 2005. Text FA to 87121 to receive entry question(std txt rate)T&C's apply 08452810075over18's",
    "FreeMsg Hey there darling it's been 3 week's now and no word back! I'd like some fun you up for it still? Tb ok! XxX std chgs to send, \u00a31.50 to rcv",
    "WINNER!! As a valued network customer you have been selected to receivea \u00a3900 prize reward! To claim call 09061701461. Claim code KL341. Valid 12 hours only.",
    "Had your mobile 11 months or more? U R entitled to Update to the latest colour mobiles with camera for Free! Call The Mobile Update Co FREE on 08002986030",
    "SIX chances to win CASH! From 100 to 20,000 pounds txt> CSH11 and send to 87575. Cost 150p/day, 6days, 16+ TsandCs apply Reply HL 4 info",
    "URGENT! You have won a 1 week FREE membership in our \u00a3100,000 Prize Jackpot! Txt the word: CLAIM to No: 81010 T&C www.dbuk.net LCCLTD POBOX 4403LDNW1A7RW18",
    "XXXMobileMovieClub: To use your credit, click the WAP link in the next txt message or click here>> http://wap. xxxmobilemovieclub.com?n=QJKGIGHJJGCBL",
    "England v Macedonia - dont miss the goals/team news. Txt ur national team to 87077 eg ENGLAND to 87077 Try:WALES, SCOTLAND 4txt/\u00fa1.20 POBOXox36504W45WQ 16+",
    "Thanks for your subscription to Ringtone UK your mobile will be charged \u00a35/month Please confirm by replying YES or NO. If you reply NO you will not be charged",
    "07732584351 - Rodger Burns - MSG = We tried to call you re your reply to our sms for a free nokia mobile + free camcorder. Please call now 08000930705 for delivery tomorrow",
    "\"Congrats! 1 year special cinema pass for 2 is yours. call 09061209465 now!\" C Suprman V, Matrix3, StarWars3, etc all 4 FREE! bx420-ip4-5we. 150pm. Dont miss out!",
    "You are a winner U have been specially selected 2 receive \u00a31000 or a 4* holiday (flights inc) speak to a live operator 2 claim 0871277810910p/min (18+)",
    "Want explicit SEX in 30 secs? Ring 02073162414 now! Costs 20p/min",
    "ASKED 3MOBILE IF 0870 CHATLINES INCLU IN FREE MINS. INDIA CUST SERVs SED, YES. L8ER GOT MEGA BILL. 3 DONT GIV A SHIT. BAILIFF DUE IN DAYS. I O \u00a3250 3 WANT \u00a3800",
]


def collection():
    """The TSV's bytes: ham and spam interleaved, a blank line, a CRLF line end, no final newline."""
    lines, s = [], 0
    for i, text in enumerate(HAM):
        lines.append(f"ham\t{text}")
        if i % 3 == 2 and s < len(SPAM):
            lines.append(f"spam\t{SPAM[s]}")
            s += 1
    lines += [f"spam\t{t}" for t in SPAM[s:]]
    body = "\n".join(lines[:10]) + "\n\n" + lines[10] + "\r\n" + "\n".join(lines[11:])
    return body.encode("utf-8")


def write_zip(path, members, method):
    with zipfile.ZipFile(path, "w", compression=method) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, date_time=(2011, 3, 15, 0, 0, 0)), data, compress_type=method)


def write_loader_cases(book):
    import tiktoken
    import torch
    from torch.utils.data import DataLoader

    tokenizer = tiktoken.get_encoding("gpt2")
    lines = []

    def dump(name, dataset, loader, epochs):
        lines.append(f"dataset {name} max_length {dataset.max_length} len {len(dataset)} batches {len(loader)}")
        for epoch in range(epochs):
            for input_batch, target_batch in loader:
                lines.append(f"epoch {epoch} inputs {list(input_batch.shape)} "
                             f"{' '.join(map(str, input_batch.flatten().tolist()))} "
                             f"labels {' '.join(map(str, target_batch.tolist()))}")

    train_dataset = book.SpamDataset(csv_file=OUT / "train.csv", max_length=None, tokenizer=tokenizer)
    val_dataset = book.SpamDataset(csv_file=OUT / "validation.csv", max_length=train_dataset.max_length,
                                   tokenizer=tokenizer)
    try:  # test.csv holds a NaN text (the collection's empty or "NA" message): the book's class fails
        book.SpamDataset(csv_file=OUT / "test.csv", max_length=train_dataset.max_length, tokenizer=tokenizer)
        raise AssertionError("test.csv was expected to hold a NaN text")
    except TypeError:
        pass
    torch.manual_seed(123)
    train_loader = DataLoader(dataset=train_dataset, batch_size=8, shuffle=True, num_workers=0, drop_last=True)
    val_loader = DataLoader(dataset=val_dataset, batch_size=8, num_workers=0, drop_last=False)
    dump("train", train_dataset, train_loader, 2)
    dump("validation", val_dataset, val_loader, 2)
    short = book.SpamDataset(csv_file=OUT / "train.csv", max_length=6, tokenizer=tokenizer)
    dump("train_max_length_6", short, DataLoader(dataset=short, batch_size=3), 1)
    (OUT / "loader_cases.txt").write_text("\n".join(lines) + "\n")


def main():
    import numpy as np
    import pandas as pd

    import tiktoken_stub
    tiktoken_stub.install()
    import empty_modules
    empty_modules.install("tensorflow", "tqdm", "requests", "matplotlib", "matplotlib.pyplot")
    sys.path.insert(0, str(pathlib.Path(BOOK, SCRIPT).parent))
    import gpt_class_finetune as book

    OUT.mkdir(parents=True, exist_ok=True)
    tsv = collection()
    (OUT / "sms_small.tsv").write_bytes(tsv)
    readme = b"A small SMS-like collection made by tests/goldens/make_ch06_data_goldens.py\n"
    write_zip(OUT / "sms_small.zip", [("SMSSpamCollection", tsv), ("readme", readme)], zipfile.ZIP_DEFLATED)
    write_zip(OUT / "sms_small_stored.zip", [("readme", readme), ("SMSSpamCollection", tsv)], zipfile.ZIP_STORED)
    write_zip(OUT / "not_sms.zip", [("readme", readme)], zipfile.ZIP_DEFLATED)

    # The notebook's cells, on the TSV the zip holds (read back through zipfile, as extractall would).
    with zipfile.ZipFile(OUT / "sms_small.zip") as z:
        data = z.read("SMSSpamCollection")
    df = pd.read_csv(io.BytesIO(data), sep="\t", header=None, names=["Label", "Text"])
    balanced_df = book.create_balanced_dataset(df)
    balanced_df["Label"] = balanced_df["Label"].map({"ham": 0, "spam": 1})
    train_df, validation_df, test_df = book.random_split(balanced_df, 0.7, 0.1)
    train_df.to_csv(OUT / "train.csv", index=None)
    validation_df.to_csv(OUT / "validation.csv", index=None)
    test_df.to_csv(OUT / "test.csv", index=None)
    # Every row, labels mapped, written the same way: the hard cases the sample may have left out.
    all_df = df.copy()
    all_df["Label"] = all_df["Label"].map({"ham": 0, "spam": 1})
    all_df.to_csv(OUT / "all.csv", index=None)

    with open(OUT / "permutation_cases.txt", "w") as f:
        for n in (0, 1, 2, 10, 44, 100, 747, 1494, 4825):
            perm = np.random.RandomState(123).permutation(n)
            f.write(f"{n} {' '.join(map(str, perm))}\n")
    write_loader_cases(book)
    print(f"{len(df)} rows, {len(balanced_df)} balanced: train {len(train_df)}, "
          f"validation {len(validation_df)}, test {len(test_df)}", file=sys.stderr)


if __name__ == "__main__":
    main()
