// 6.2 Preparing the dataset, 6.3 Creating data loaders: the SMS Spam Collection read from the file
// the notebook downloads (--data: sms_spam_collection.zip or its SMSSpamCollection TSV; nothing is
// downloaded), its label counts, the balanced data set, the 70/10/20 split, SpamDataset and the
// three loaders (common/train/classification_data.hpp). The CSVs the notebook writes stay in memory
// unless --out-dir names a folder for them. The DataFrame displays (`df`, `balanced_df`) are
// pandas' repr (text/pandas_repr.hpp).
#include <filesystem>
#include <fstream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "llmfs/app/classifier_program.hpp"
#include "llmfs/app/cli.hpp"
#include "llmfs/train/classification_data.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    std::string data, out_dir;
    return run_chapter(
        argc, argv, "6.2 Preparing the dataset, 6.3 Creating data loaders (the SMS Spam Collection from --data FILE)",
        [&](CLI::App& app) {
            app.add_option("--data", data, "the SMS Spam Collection: sms_spam_collection.zip as the notebook downloads it, or its TSV")
                ->type_name("FILE")
                ->required();
            app.add_option("--out-dir", out_dir, "also write train.csv, validation.csv and test.csv here, as the notebook does")
                ->type_name("DIR");
        },
        [&](Notebook& nb, Generator& gen) {
            nb.section("6.2 Preparing the dataset");
            nb.note("The notebook downloads sms_spam_collection.zip; here it is read from --data " + data +
                    " (the notebook's 'already exists. Skipping download' line is not reproduced).");
            const std::vector<SmsMessage> df = parse_sms_tsv(read_sms_spam_collection(data));
            nb.code("import pandas as pd\n"
                    "\n"
                    "df = pd.read_csv(data_file_path, sep=\"\\t\", header=None, names=[\"Label\", \"Text\"])\n"
                    "df");
            nb.print(sms_frame_repr(df));
            nb.code("print(df[\"Label\"].value_counts())");
            nb.print(value_counts_text(df));
            nb.code("def create_balanced_dataset(df):\n"
                    "\n"
                    "    num_spam = df[df[\"Label\"] == \"spam\"].shape[0]\n"
                    "\n"
                    "    ham_subset = df[df[\"Label\"] == \"ham\"].sample(num_spam, random_state=123)\n"
                    "\n"
                    "    balanced_df = pd.concat([ham_subset, df[df[\"Label\"] == \"spam\"]])\n"
                    "\n"
                    "    return balanced_df\n"
                    "\n"
                    "balanced_df = create_balanced_dataset(df)\n"
                    "print(balanced_df[\"Label\"].value_counts())");
            const std::vector<SmsMessage> balanced_text = create_balanced_dataset(df);
            nb.print(value_counts_text(balanced_text));
            nb.code("balanced_df[\"Label\"] = balanced_df[\"Label\"].map({\"ham\": 0, \"spam\": 1})");
            const std::vector<LabeledMessage> balanced_df = map_labels(balanced_text);
            nb.code("balanced_df");
            nb.print(labeled_frame_repr(balanced_rows(df), balanced_df));
            nb.code("def random_split(df, train_frac, validation_frac):\n"
                    "    df = df.sample(frac=1, random_state=123).reset_index(drop=True)\n"
                    "\n"
                    "    train_end = int(len(df) * train_frac)\n"
                    "    validation_end = train_end + int(len(df) * validation_frac)\n"
                    "\n"
                    "    train_df = df[:train_end]\n"
                    "    validation_df = df[train_end:validation_end]\n"
                    "    test_df = df[validation_end:]\n"
                    "\n"
                    "    return train_df, validation_df, test_df\n"
                    "\n"
                    "train_df, validation_df, test_df = random_split(balanced_df, 0.7, 0.1)\n"
                    "\n"
                    "train_df.to_csv(\"train.csv\", index=None)\n"
                    "validation_df.to_csv(\"validation.csv\", index=None)\n"
                    "test_df.to_csv(\"test.csv\", index=None)");
            const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
            const SpamData d = load_spam_data(data, tokenizer, gen);  // the split above and the next cells'
            const std::string csv[3] = {to_csv(d.split.train), to_csv(d.split.validation), to_csv(d.split.test)};

            nb.section("6.3 Creating data loaders");
            nb.code("import tiktoken\n"
                    "\n"
                    "tokenizer = tiktoken.get_encoding(\"gpt2\")\n"
                    "print(tokenizer.encode(\"<|endoftext|>\", allowed_special={\"<|endoftext|>\"}))");
            const std::vector<std::int64_t> eot = tokenizer.encode("<|endoftext|>");
            nb.print(fmt::format("[{}]", fmt::join(eot, ", ")));
            nb.code("train_dataset = SpamDataset(\n"
                    "    csv_file=\"train.csv\",\n"
                    "    max_length=None,\n"
                    "    tokenizer=tokenizer\n"
                    ")\n"
                    "\n"
                    "print(train_dataset.max_length)");
            nb.print(d.train_dataset->max_length());
            nb.code("val_dataset = SpamDataset(\n"
                    "    csv_file=\"validation.csv\",\n"
                    "    max_length=train_dataset.max_length,\n"
                    "    tokenizer=tokenizer\n"
                    ")\n"
                    "test_dataset = SpamDataset(\n"
                    "    csv_file=\"test.csv\",\n"
                    "    max_length=train_dataset.max_length,\n"
                    "    tokenizer=tokenizer\n"
                    ")");
            nb.code(kSpamLoadersCell);
            print_loader_cells(nb, gen, d);
            if (!out_dir.empty()) {
                const char* names[3] = {"train.csv", "validation.csv", "test.csv"};
                for (int i = 0; i < 3; ++i) {
                    std::ofstream out(std::filesystem::path(out_dir) / names[i], std::ios::binary);
                    out << csv[i];
                    if (!out.flush()) throw std::runtime_error("cannot write " + (std::filesystem::path(out_dir) / names[i]).string());
                }
            }
        });
}
