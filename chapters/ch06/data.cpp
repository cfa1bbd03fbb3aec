// 6.2 Preparing the dataset, 6.3 Creating data loaders: the SMS Spam Collection read from the file
// the notebook downloads (--data: sms_spam_collection.zip or its SMSSpamCollection TSV; nothing is
// downloaded), its label counts, the balanced data set, the 70/10/20 split, SpamDataset and the
// three loaders (common/train/classification_data.hpp). The CSVs the notebook writes stay in memory
// unless --out-dir names a folder for them. The DataFrame displays are not reproduced.
#include <filesystem>
#include <fstream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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
                    " (the notebook's 'already exists. Skipping download' line and its DataFrame displays are not reproduced).");
            const std::vector<SmsMessage> df = parse_sms_tsv(read_sms_spam_collection(data));
            nb.code("import pandas as pd\n"
                    "\n"
                    "df = pd.read_csv(data_file_path, sep=\"\\t\", header=None, names=[\"Label\", \"Text\"])");
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
            const SplitData split = random_split(map_labels(balanced_text), 0.7, 0.1);
            const std::string csv[3] = {to_csv(split.train), to_csv(split.validation), to_csv(split.test)};

            nb.section("6.3 Creating data loaders");
            const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
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
            const SpamDataset train_dataset(read_labeled_csv(csv[0]), tokenizer);
            nb.print(train_dataset.max_length());
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
            const SpamDataset val_dataset(read_labeled_csv(csv[1]), tokenizer, train_dataset.max_length());
            const SpamDataset test_dataset(read_labeled_csv(csv[2]), tokenizer, train_dataset.max_length());
            nb.code("from torch.utils.data import DataLoader\n"
                    "\n"
                    "num_workers = 0\n"
                    "batch_size = 8\n"
                    "\n"
                    "torch.manual_seed(123)\n"
                    "\n"
                    "train_loader = DataLoader(\n"
                    "    dataset=train_dataset,\n"
                    "    batch_size=batch_size,\n"
                    "    shuffle=True,\n"
                    "    num_workers=num_workers,\n"
                    "    drop_last=True,\n"
                    ")\n"
                    "\n"
                    "val_loader = DataLoader(\n"
                    "    dataset=val_dataset,\n"
                    "    batch_size=batch_size,\n"
                    "    num_workers=num_workers,\n"
                    "    drop_last=False,\n"
                    ")\n"
                    "\n"
                    "test_loader = DataLoader(\n"
                    "    dataset=test_dataset,\n"
                    "    batch_size=batch_size,\n"
                    "    num_workers=num_workers,\n"
                    "    drop_last=False,\n"
                    ")");
            gen.manual_seed(123);
            const ClassificationLoader train_loader(train_dataset, 8, true, true);
            const ClassificationLoader val_loader(val_dataset, 8, false, false);
            const ClassificationLoader test_loader(test_dataset, 8, false, false);
            nb.code("print(\"Train loader:\")\n"
                    "for input_batch, target_batch in train_loader:\n"
                    "    pass\n"
                    "\n"
                    "print(\"Input batch dimensions:\", input_batch.shape)\n"
                    "print(\"Label batch dimensions\", target_batch.shape)");
            nb.print("Train loader:");
            ClassificationBatch batch;
            auto epoch = train_loader.begin(gen);
            while (epoch.next(batch)) {
            }
            nb.print(fmt::format("Input batch dimensions: torch.Size([{}, {}])", batch.B, batch.T));
            nb.print(fmt::format("Label batch dimensions torch.Size([{}])", batch.B));
            nb.code("print(f\"{len(train_loader)} training batches\")\n"
                    "print(f\"{len(val_loader)} validation batches\")\n"
                    "print(f\"{len(test_loader)} test batches\")");
            nb.print(fmt::format("{} training batches", train_loader.size()));
            nb.print(fmt::format("{} validation batches", val_loader.size()));
            nb.print(fmt::format("{} test batches", test_loader.size()));
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
