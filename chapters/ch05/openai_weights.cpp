// 5.5 Loading pretrained weights from OpenAI: the gpt2/124M folder the book's gpt_download.py
// writes (its TensorFlow checkpoint, read by nn/tf_checkpoint; docs/gpt2-tf-checkpoint.md), the
// settings and parameter dictionary the notebook prints, print(params["wte"]) as NumPy prints it,
// the weights loaded into GPTModel and generate(top_k=50, temperature=1.5) after torch.manual_seed(123).
//
// --weights FOLDER (default gpt2/124M, where the notebook's download_and_load_gpt2 puts it). The
// model's sizes are the folder's hparams.json (NEW_CONFIG is gpt2-small's for gpt2/124M; a
// smaller folder, as the tests', gives a smaller model where the notebook would raise a shape
// mismatch). The notebook's output of the last cell comes from OpenAI's weights on its machine.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "llmfs/app/cli.hpp"
#include "llmfs/nn/tf_checkpoint.hpp"
#include "llmfs/text/python_text.hpp"
#include "llmfs/torch/numpy_print.hpp"
#include "llmfs/torch/print.hpp"
#include "llmfs/train/evaluate.hpp"

using namespace llmfs;

namespace {

// repr() of json.load's value: a dict in the file's key order, ints, floats, strings, lists.
std::string python_value_repr(const nlohmann::ordered_json& v) {
    if (v.is_object()) {
        std::string out = "{";
        for (auto it = v.begin(); it != v.end(); ++it) out += (it == v.begin() ? "" : ", ") + python_repr(it.key()) + ": " + python_value_repr(it.value());
        return out + "}";
    }
    if (v.is_array()) {
        std::string out = "[";
        for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + python_value_repr(v[i]);
        return out + "]";
    }
    if (v.is_string()) return python_repr(v.get<std::string>());
    if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
    if (v.is_null()) return "None";
    if (v.is_number_float()) return python_float_repr(v.get<double>());
    return v.dump();  // an integer
}

// params.keys() of load_gpt2_params_from_tf_ckpt: "blocks", then, in the checkpoint's name order,
// the top-level key of each variable outside the hN blocks (model/ln_f/b -> "b", model/wte -> "wte").
std::vector<std::string> params_keys(const TfCheckpoint& ck) {
    std::vector<std::string> keys = {"blocks"};
    for (const TfTensorView& t : ck.tensors()) {
        std::vector<std::string> parts = tf_name_parts(t.name);
        parts.erase(parts.begin());  // name.split("/")[1:]
        if (parts.empty() || parts[0].rfind("h", 0) == 0) continue;
        const std::string& key = parts.size() > 2 ? parts[1] : parts.back();
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
    return keys;
}

}  // namespace

int main(int argc, char** argv) {
    std::string folder = "gpt2/124M";
    return run_chapter(
        argc, argv, "5.5 Loading pretrained weights from OpenAI (the gpt2/124M folder gpt_download.py writes)",
        [&](CLI::App& app) {
            app.add_option("--weights", folder, "the folder gpt_download.py writes: checkpoint, hparams.json, model.ckpt.* (default gpt2/124M)")
                ->type_name("FOLDER");
        },
        [&](Notebook& nb, Generator& gen) {
            nb.section("5.5 Loading pretrained weights from OpenAI");
            nb.code("# Relative import from the gpt_download.py contained in this folder\n"
                    "\n"
                    "from gpt_download import download_and_load_gpt2\n"
                    "# Alternatively:\n"
                    "# from llms_from_scratch.ch05 import download_and_load_gpt2");
            nb.note("llmfs never downloads: the folder is --weights (default gpt2/124M, where the notebook's download puts it); "
                    "the notebook's 'File already exists' lines are not printed.");
            nb.code("settings, params = download_and_load_gpt2(model_size=\"124M\", models_dir=\"gpt2\")");
            const Gpt2TfFolder downloaded = read_gpt2_tf_folder(folder);  // hparams.json and the checkpoint, checked
            const TfCheckpoint& ck = downloaded.checkpoint;                // params, as the notebook's names
            const SafeTensors& params = downloaded.weights;                // the same, renamed for load_weights_into_gpt
            const auto settings = nlohmann::ordered_json::parse(downloaded.hparams_json);
            nb.code("print(\"Settings:\", settings)");
            nb.print("Settings:", python_value_repr(settings));
            nb.code("print(\"Parameter dictionary keys:\", params.keys())");
            std::string keys;
            for (const std::string& k : params_keys(ck)) keys += (keys.empty() ? "" : ", ") + python_repr(k);
            nb.print("Parameter dictionary keys:", "dict_keys([" + keys + "])");
            nb.code("print(params[\"wte\"])\n"
                    "print(\"Token embedding weight tensor dimensions:\", params[\"wte\"].shape)");
            const TfTensorView* wte = ck.find("model/wte");  // np.squeeze(tf.train.load_variable(...)): [V, C]
            const std::vector<std::size_t> wte_shape(wte->shape.begin(), wte->shape.end());
            std::vector<float> wte_values(wte->size / sizeof(float));
            std::memcpy(wte_values.data(), wte->data, wte->size);
            nb.print(numpy_str(wte_values.data(), wte_shape));
            nb.print("Token embedding weight tensor dimensions:", numpy_shape(wte_shape));
            nb.code("# Define model configurations in a dictionary for compactness\n"
                    "model_configs = {\n"
                    "    \"gpt2-small (124M)\": {\"emb_dim\": 768, \"n_layers\": 12, \"n_heads\": 12},\n"
                    "    \"gpt2-medium (355M)\": {\"emb_dim\": 1024, \"n_layers\": 24, \"n_heads\": 16},\n"
                    "    \"gpt2-large (774M)\": {\"emb_dim\": 1280, \"n_layers\": 36, \"n_heads\": 20},\n"
                    "    \"gpt2-xl (1558M)\": {\"emb_dim\": 1600, \"n_layers\": 48, \"n_heads\": 25},\n"
                    "}\n"
                    "\n"
                    "# Copy the base configuration and update with specific model settings\n"
                    "model_name = \"gpt2-small (124M)\"  # Example model name\n"
                    "NEW_CONFIG = GPT_CONFIG_124M.copy()\n"
                    "NEW_CONFIG.update(model_configs[model_name])\n"
                    "NEW_CONFIG.update({\"context_length\": 1024, \"qkv_bias\": True})\n"
                    "\n"
                    "gpt = GPTModel(NEW_CONFIG)\n"
                    "gpt.eval();");
            const GPTConfig cfg = infer_gpt_config(params);  // NEW_CONFIG: the folder's sizes, qkv_bias True
            GPTModel gpt(gen, cfg, Init::zeros);                // its initial weights are all replaced below
            gpt.train(false);
            nb.code("def assign(left, right):\n"
                    "    if left.shape != right.shape:\n"
                    "        raise ValueError(f\"Shape mismatch. Left: {left.shape}, Right: {right.shape}\")\n"
                    "    return torch.nn.Parameter(torch.tensor(right))");
            nb.code("import numpy as np\n"
                    "\n"
                    "def load_weights_into_gpt(gpt, params):\n"
                    "    gpt.pos_emb.weight = assign(gpt.pos_emb.weight, params['wpe'])\n"
                    "    gpt.tok_emb.weight = assign(gpt.tok_emb.weight, params['wte'])\n"
                    "    \n"
                    "    for b in range(len(params[\"blocks\"])):\n"
                    "        q_w, k_w, v_w = np.split(\n"
                    "            (params[\"blocks\"][b][\"attn\"][\"c_attn\"])[\"w\"], 3, axis=-1)\n"
                    "        gpt.trf_blocks[b].att.W_query.weight = assign(\n"
                    "            gpt.trf_blocks[b].att.W_query.weight, q_w.T)\n"
                    "        gpt.trf_blocks[b].att.W_key.weight = assign(\n"
                    "            gpt.trf_blocks[b].att.W_key.weight, k_w.T)\n"
                    "        gpt.trf_blocks[b].att.W_value.weight = assign(\n"
                    "            gpt.trf_blocks[b].att.W_value.weight, v_w.T)\n"
                    "\n"
                    "        q_b, k_b, v_b = np.split(\n"
                    "            (params[\"blocks\"][b][\"attn\"][\"c_attn\"])[\"b\"], 3, axis=-1)\n"
                    "        gpt.trf_blocks[b].att.W_query.bias = assign(\n"
                    "            gpt.trf_blocks[b].att.W_query.bias, q_b)\n"
                    "        gpt.trf_blocks[b].att.W_key.bias = assign(\n"
                    "            gpt.trf_blocks[b].att.W_key.bias, k_b)\n"
                    "        gpt.trf_blocks[b].att.W_value.bias = assign(\n"
                    "            gpt.trf_blocks[b].att.W_value.bias, v_b)\n"
                    "\n"
                    "        gpt.trf_blocks[b].att.out_proj.weight = assign(\n"
                    "            gpt.trf_blocks[b].att.out_proj.weight, \n"
                    "            params[\"blocks\"][b][\"attn\"][\"c_proj\"][\"w\"].T)\n"
                    "        gpt.trf_blocks[b].att.out_proj.bias = assign(\n"
                    "            gpt.trf_blocks[b].att.out_proj.bias, \n"
                    "            params[\"blocks\"][b][\"attn\"][\"c_proj\"][\"b\"])\n"
                    "\n"
                    "        gpt.trf_blocks[b].ff.layers[0].weight = assign(\n"
                    "            gpt.trf_blocks[b].ff.layers[0].weight, \n"
                    "            params[\"blocks\"][b][\"mlp\"][\"c_fc\"][\"w\"].T)\n"
                    "        gpt.trf_blocks[b].ff.layers[0].bias = assign(\n"
                    "            gpt.trf_blocks[b].ff.layers[0].bias, \n"
                    "            params[\"blocks\"][b][\"mlp\"][\"c_fc\"][\"b\"])\n"
                    "        gpt.trf_blocks[b].ff.layers[2].weight = assign(\n"
                    "            gpt.trf_blocks[b].ff.layers[2].weight, \n"
                    "            params[\"blocks\"][b][\"mlp\"][\"c_proj\"][\"w\"].T)\n"
                    "        gpt.trf_blocks[b].ff.layers[2].bias = assign(\n"
                    "            gpt.trf_blocks[b].ff.layers[2].bias, \n"
                    "            params[\"blocks\"][b][\"mlp\"][\"c_proj\"][\"b\"])\n"
                    "\n"
                    "        gpt.trf_blocks[b].norm1.scale = assign(\n"
                    "            gpt.trf_blocks[b].norm1.scale, \n"
                    "            params[\"blocks\"][b][\"ln_1\"][\"g\"])\n"
                    "        gpt.trf_blocks[b].norm1.shift = assign(\n"
                    "            gpt.trf_blocks[b].norm1.shift, \n"
                    "            params[\"blocks\"][b][\"ln_1\"][\"b\"])\n"
                    "        gpt.trf_blocks[b].norm2.scale = assign(\n"
                    "            gpt.trf_blocks[b].norm2.scale, \n"
                    "            params[\"blocks\"][b][\"ln_2\"][\"g\"])\n"
                    "        gpt.trf_blocks[b].norm2.shift = assign(\n"
                    "            gpt.trf_blocks[b].norm2.shift, \n"
                    "            params[\"blocks\"][b][\"ln_2\"][\"b\"])\n"
                    "\n"
                    "    gpt.final_norm.scale = assign(gpt.final_norm.scale, params[\"g\"])\n"
                    "    gpt.final_norm.shift = assign(gpt.final_norm.shift, params[\"b\"])\n"
                    "    gpt.out_head.weight = assign(gpt.out_head.weight, params[\"wte\"])\n"
                    "    \n"
                    "    \n"
                    "load_weights_into_gpt(gpt, params)\n"
                    "gpt.to(device);");
            load_weights_into_gpt(gpt, params);
            nb.code("torch.manual_seed(123)\n"
                    "\n"
                    "token_ids = generate(\n"
                    "    model=gpt,\n"
                    "    idx=text_to_token_ids(\"Every effort moves you\", tokenizer).to(device),\n"
                    "    max_new_tokens=25,\n"
                    "    context_size=NEW_CONFIG[\"context_length\"],\n"
                    "    top_k=50,\n"
                    "    temperature=1.5\n"
                    ")\n"
                    "\n"
                    "print(\"Output text:\\n\", token_ids_to_text(token_ids, tokenizer))");
            gen.manual_seed(123);
            const Gpt2Tokenizer tokenizer = Gpt2Tokenizer::load_default();
            SamplingOptions sampling;
            sampling.top_k = 50;
            sampling.temperature = 1.5;
            const IdArray<2> token_ids = generate(gpt, text_to_token_ids("Every effort moves you", tokenizer), 25, cfg.context_length, sampling, gen);
            nb.print("Output text:\n", token_ids_to_text(token_ids, tokenizer));
        });
}
