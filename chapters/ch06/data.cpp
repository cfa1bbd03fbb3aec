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
            nb.code("df = pd.read_csv(data_file_path, sep=\"\\t\", header=None, names=[\"Label\", \"Text\"])\n"
                    "print(df[\"Label\"].value_counts())");
            nb.print(value_counts_text(df));
            nb.code("balanced_df = create_balanced_dataset(df)\nprint(balanced_df[\"Label\"].value_counts())");
            const std::vector<SmsMessage> balanced_text = create_balanced_dataset(df);
            nb.print(value_counts_text(balanced_text));
            nb.code("balanced_df[\"Label\"] = balanced_df[\"Label\"].map({\"ham\": 0, \"spam\": 1})\n"
                    "train_df, validation_df, test_df = random_split(balanced_df, 0.7, 0.1)\n"
                    "train_df.to_csv(\"train.csv\", index=None) ...");
            const SplitData split = random_split(map_labels(balanced_text), 0.7, 0.1);
            const std::string csv[3] = {to_csv(split.train), to_csv(split.validation), to_csv(split.test)};

            nb.section("6.3 Creating data loaders");
            const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
            nb.code("print(tokenizer.encode(\"<|endoftext|>\", allowed_special={\"<|endoftext|>\"}))");
            const std::vector<std::int64_t> eot = tokenizer.encode("<|endoftext|>");
            nb.print(fmt::format("[{}]", fmt::join(eot, ", ")));
            nb.code("train_dataset = SpamDataset(csv_file=\"train.csv\", max_length=None, tokenizer=tokenizer)\n"
                    "print(train_dataset.max_length)");
            const SpamDataset train_dataset(read_labeled_csv(csv[0]), tokenizer);
            nb.print(train_dataset.max_length());
            const SpamDataset val_dataset(read_labeled_csv(csv[1]), tokenizer, train_dataset.max_length());
            const SpamDataset test_dataset(read_labeled_csv(csv[2]), tokenizer, train_dataset.max_length());
            nb.code("torch.manual_seed(123)\ntrain_loader = DataLoader(dataset=train_dataset, batch_size=8, shuffle=True, "
                    "num_workers=0, drop_last=True) ...\nprint(\"Train loader:\")\nfor input_batch, target_batch in train_loader:\n    pass");
            gen.manual_seed(123);
            const ClassificationLoader train_loader(train_dataset, 8, true, true);
            const ClassificationLoader val_loader(val_dataset, 8, false, false);
            const ClassificationLoader test_loader(test_dataset, 8, false, false);
            nb.print("Train loader:");
            ClassificationBatch batch;
            auto epoch = train_loader.begin(gen);
            while (epoch.next(batch)) {
            }
            nb.print(fmt::format("Input batch dimensions: torch.Size([{}, {}])", batch.B, batch.T));
            nb.print(fmt::format("Label batch dimensions torch.Size([{}])", batch.B));
            nb.code("print(f\"{len(train_loader)} training batches\") ...");
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
