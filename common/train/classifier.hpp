// Chapter 6's classifier: the GPT with a two-class head, judged by its last token's logits.
//
//   torch.manual_seed(123)
//   model.out_head = torch.nn.Linear(in_features=BASE_CONFIG["emb_dim"], out_features=num_classes)
//   logits = model(input_batch)[:, -1, :]                       # calc_loss_batch, calc_accuracy_loader
//   loss = torch.nn.functional.cross_entropy(logits, target_batch)
//   calc_accuracy_loader(loader, model, device, num_batches)    # model.eval(); argmax per row
//   calc_loss_loader(loader, model, device, num_batches)        # chapter 5's, over calc_loss_batch above
//   classify_review(text, model, tokenizer, device, max_length) # "spam" or "not spam"
//
// The bonus script ch06/02_bonus_additional-experiments/additional_experiments.py (exercises 6.1
// to 6.3) varies what the loss and the accuracies read (Readout below) and which parameters train
// (TrainableLayers, LoRA).
//
// Letters: B batch, T tokens, C emb_dim, K classes.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "llmfs/nn/gpt.hpp"
#include "llmfs/torch/loss.hpp"
#include "llmfs/train/adamw.hpp"
#include "llmfs/train/classification_data.hpp"
#include "llmfs/train/frozen_trunk.hpp"
#include "llmfs/train/gpt_backward.hpp"

namespace llmfs {

// model.out_head = torch.nn.Linear(emb_dim, num_classes): weight then bias drawn from `gen`.
void replace_out_head(GPTModel& model, Generator& gen, std::size_t num_classes);

// What the loss and the accuracies read of the logits [B, T, K]: the chapter's last token, or
// additional_experiments.py's choices:
//   --trainable_token_pos first|last   model(input_batch)[:, position, :], 0 or -1 (a Python index into T)
//   --trainable_token_pos flexible     each row's last token before the padding:
//       last_token_pos = (input_batch != 50256).sum(dim=1) - 1     # -1 (a row of padding only): the last
//       logits[torch.arange(batch_size), last_token_pos]
//   --average_embeddings               model(input_batch).mean(dim=1): sum(dim=1)'s outer reduction,
//                                      then / T (its backward spreads d / T over every position)
//   --ignore_index N                   cross_entropy(logits, target_batch, ignore_index=N): the rows
//                                      labelled N count for nothing in the loss (its flexible branch
//                                      calls cross_entropy without it: -100 there)
struct Readout {
    enum class Tokens { position, flexible, mean };
    Tokens tokens = Tokens::position;
    int position = -1;                         // Tokens::position's index into T
    std::int64_t ignore_index = kIgnoreIndex;  // the loss's

    Readout(int position = -1) : position(position) {}  // NOLINT(google-explicit-constructor): a position reads as itself
    static Readout flexible();
    static Readout mean();
    std::int64_t loss_ignore_index() const { return tokens == Tokens::flexible ? kIgnoreIndex : ignore_index; }
};

// model(inputs)[:, -1, :]: inputs [B, T] -> [B, K], row-major.
std::vector<float> last_token_logits(const GPTModel& model, const IdArray<2>& inputs);
// model(inputs) read as `readout` says: [B, K]. std::out_of_range as PyTorch's IndexError for a
// position outside [-T, T).
std::vector<float> token_logits(const GPTModel& model, const IdArray<2>& inputs, const Readout& readout);
// Python's index into T: token_pos, or T + token_pos when negative; std::out_of_range outside [-T, T).
std::size_t token_index(int token_pos, std::size_t T);

// The position each row's logits are read at: token_index(position, T) for every row, or each
// row's count of tokens other than 50256, less one (flexible). ids [B, T]. std::invalid_argument
// for Tokens::mean, which reads no one position.
std::vector<std::size_t> token_rows(const std::int64_t* ids, std::size_t B, std::size_t T, const Readout& readout);
// The logits the loss and the accuracies read, and where: logits [B, T, K] at each row's position
// (token_rows; rows) or their mean over T (rows empty) -> [B, K].
struct ReadLogits {
    std::vector<float> logits;      // [B, K]
    std::vector<std::size_t> rows;  // [B]: the position read in each row; empty for the mean
};
ReadLogits read_logits(const float* logits, const std::int64_t* ids, std::size_t B, std::size_t T, std::size_t K,
                       const Readout& readout);

// cross_entropy(model(input_batch)[:, -1, :], target_batch), or as `readout` reads. With a
// `trunk` (frozen_trunk.hpp), the model's forward through it: the same bits, the frozen blocks run
// once per example.
float calc_loss_batch(const GPTModel& model, const ClassificationBatch& batch, const Readout& readout = {}, FrozenTrunk* trunk = nullptr);

// The share of rows whose argmax (the first largest logit) is the label, over the first
// num_batches batches (all when unset); sets the model to eval mode as the book's function does.
double calc_accuracy_loader(const ClassificationLoader& loader, GPTModel& model, Generator& gen,
                            std::optional<std::size_t> num_batches = std::nullopt, const Readout& readout = {},
                            FrozenTrunk* trunk = nullptr);

// The mean of calc_loss_batch over the first num_batches batches, the losses added in double; NaN
// for an empty loader.
double calc_loss_loader(const ClassificationLoader& loader, const GPTModel& model, Generator& gen,
                        std::optional<std::size_t> num_batches = std::nullopt, const Readout& readout = {},
                        FrozenTrunk* trunk = nullptr);

// classify_review(text, model, tokenizer, device, max_length, pad_token_id=50256): the text's
// tokens cut to min(max_length, context_length), padded to max_length; "spam" when the last
// token's argmax is 1, else "not spam". Sets eval mode. std::invalid_argument for a max_length
// past the context length (the book's assert).
std::string classify_review(const std::string& text, GPTModel& model, const Gpt2Tokenizer& tokenizer,
                            std::size_t max_length, std::int64_t pad_token_id = 50256);

// ---- fine-tuning (6.7) ----------------------------------------------------------------------
//   for param in model.parameters(): param.requires_grad = False
//   model.out_head = torch.nn.Linear(emb_dim, num_classes)          # trainable
//   for param in model.trf_blocks[-1].parameters(): param.requires_grad = True
//   for param in model.final_norm.parameters(): param.requires_grad = True
// Only those get gradients: autograd stops at the last block's input, and AdamW(model.parameters())
// skips the parameters whose .grad is None, so it updates only these. additional_experiments.py's
// --trainable_layers chooses others:
enum class TrainableLayers {
    last_layer,       // out_head only (autograd stops at its input)
    last_block,       // out_head, final_norm, trf_blocks[-1]: the chapter's
    last_two_blocks,  // and trf_blocks[-2]
    all,              // every parameter: tok_emb, pos_emb, every block, final_norm, out_head
};
// The script's names ("last_layer", "last_block", "last_two_blocks", "all"); std::invalid_argument
// naming them for another.
TrainableLayers parse_trainable_layers(const std::string& name);
const char* trainable_layers_name(TrainableLayers layers);
// The trunk below what `layers` trains (frozen_trunk.hpp): trf_blocks[0 .. n_layers - trained
// blocks); none for TrainableLayers::all (inactive). `mode`: LLMFS_TRUNK_CACHE's when unset.
FrozenTrunk frozen_trunk(const GPTModel& model, TrainableLayers layers, std::optional<AutoOnOff> mode = std::nullopt);

// The gradients of the trainable parameters, in model.parameters() order.
struct ClassifierGrads {
    std::vector<float> tok_emb, pos_emb;          // TrainableLayers::all only
    std::vector<BlockGrads> blocks;               // the trainable blocks, lowest first (none for last_layer)
    std::vector<float> final_scale, final_shift;  // all but last_layer
    LinearGrads out_head;
};
std::vector<std::pair<std::string, const std::vector<float>*>> named_gradients(const ClassifierGrads& grads, std::size_t n_layers,
                                                                              TrainableLayers layers = TrainableLayers::last_block);
// The trainable parameters (names and values) as model.named_parameters() yields those with
// requires_grad.
std::vector<ParameterView> trainable_parameters(GPTModel& model, TrainableLayers layers = TrainableLayers::last_block);

// loss = cross_entropy(model(input_batch)[:, -1, :], target_batch) (or as `readout` reads); loss.backward() through
// out_head and what `layers` trains (the chapter's: final_norm and the last block), from a training
// forward `saved` (gpt_forward). labels [B]. Gradients set. Returns the loss. StepKernels::fast:
// the fast LayerNorm, GELU and attention backward (the same bits: classifier_test compares them).
// grad_output: d loss (1 / accumulation_steps after `loss /= accumulation_steps`).
float classifier_loss_backward(const GPTModel& model, const GPTSaved& saved, const std::int64_t* labels, ClassifierGrads& grads,
                               StepKernels kernels = StepKernels::fast, TrainableLayers layers = TrainableLayers::last_block,
                               const Readout& readout = {}, float grad_output = 1.0f);

// torch.optim.AdamW(model.parameters(), lr, weight_decay) after the freezing above.
class ClassifierAdamW {
public:
    ClassifierAdamW(GPTModel& model, AdamWOptions options, TrainableLayers layers = TrainableLayers::last_block);
    void step(const ClassifierGrads& grads);  // optimizer.step() after zero_grad() and loss.backward()
    TrainableLayers layers() const { return layers_; }

private:
    std::vector<ParameterView> params_;
    std::vector<AdamWState> state_;
    AdamWOptions options_;
    std::size_t n_layers_;
    TrainableLayers layers_;
};

// One pass of the loop's body: zero_grad, calc_loss_batch, backward, optimizer.step; the forward
// and backward through the fast kernels unless StepKernels::reference (the same bits). The
// optimizer's TrainableLayers say what the backward computes. A `trunk` (fast kernels only) runs the
// forward; std::logic_error when it keeps a block the optimizer trains.
float train_classifier_step(GPTModel& model, ClassifierAdamW& optimizer, const ClassificationBatch& batch,
                            StepKernels kernels = StepKernels::fast, const Readout& readout = {}, FrozenTrunk* trunk = nullptr);

// ---- appendix E: LoRA (nn/lora.hpp) --------------------------------------------------------
//   for param in model.parameters(): param.requires_grad = False
//   replace_linear_with_lora(model, rank=16, alpha=16)        # every Linear, out_head too
//   optimizer = torch.optim.AdamW(model.parameters(), lr=8e-4, weight_decay=0.1)
// Only the adapters' A and B get gradients, so AdamW steps them only; autograd goes down to the
// first block (its adapters are trainable), the frozen layers passing the gradient through.

// additional_experiments.py's --trainable_layers lora makes the new head after the freezing, then
// the adapters, so out_head's own Linear trains too (LoRAHead::trained):
//   for param in model.parameters(): param.requires_grad = False
//   torch.manual_seed(123)
//   model.out_head = torch.nn.Linear(in_features=in_features, out_features=2)   # trainable
//   replace_linear_with_lora(model, rank=args.lora_rank, alpha=args.lora_alpha)     # self.alpha * (x @ A @ B): LoRAScaling::alpha
enum class LoRAHead { frozen, trained };

// The adapters' gradients (LinearGrads' lora_A, lora_B of each layer; the rest left empty or
// unused), and out_head's weight and bias under LoRAHead::trained.
struct LoRAClassifierGrads {
    std::vector<BlockGrads> blocks;               // trf_blocks[0 .. n_layers)
    std::vector<float> final_scale, final_shift;  // computed on the way down, not trained
    LinearGrads out_head;
};
// "trf_blocks.0.att.W_query.lora.A", ... in model.parameters() order; "out_head.linear.weight"
// and "out_head.linear.bias" before out_head's adapter when out_head's weight has a gradient.
std::vector<std::pair<std::string, const std::vector<float>*>> named_gradients(const LoRAClassifierGrads& grads);
// The adapters' parameters (and out_head's Linear's under LoRAHead::trained), named and ordered as
// named_gradients above.
std::vector<ParameterView> lora_parameters(GPTModel& model, LoRAHead head = LoRAHead::frozen);

// classifier_loss_backward for a model whose every Linear has an adapter: through out_head,
// final_norm and every block, the loss reading `readout`. std::invalid_argument when a Linear has none.
float lora_classifier_loss_backward(const GPTModel& model, const GPTSaved& saved, const std::int64_t* labels, LoRAClassifierGrads& grads,
                                    StepKernels kernels = StepKernels::fast, LoRAHead head = LoRAHead::frozen, const Readout& readout = {},
                                    float grad_output = 1.0f);

// torch.optim.AdamW(model.parameters(), lr, weight_decay) after the freezing and the adapters.
class LoRAAdamW {
public:
    LoRAAdamW(GPTModel& model, AdamWOptions options, LoRAHead head = LoRAHead::frozen);
    void step(const LoRAClassifierGrads& grads);
    LoRAHead head() const { return head_; }

private:
    std::vector<ParameterView> params_;
    std::vector<AdamWState> state_;
    AdamWOptions options_;
    LoRAHead head_;
};

// The optimizer's LoRAHead says whether out_head's Linear gets gradients.
float train_lora_classifier_step(GPTModel& model, LoRAAdamW& optimizer, const ClassificationBatch& batch,
                                 StepKernels kernels = StepKernels::fast, const Readout& readout = {});

// additional_experiments.py's train_classifier_simple with --accumulation_steps N: each batch
//   loss /= accumulation_steps; loss.backward()        # the gradients add up: grad = grad + new
//   if (batch_idx + 1) % accumulation_steps == 0 or (batch_idx + 1) == len(train_loader):
//       optimizer.step(); optimizer.zero_grad()
// batch_idx counts the batches of an epoch (enumerate(train_loader)), so an epoch's last batch
// always steps. N = 1 is the plain step's bits.
class GradientAccumulation {
public:
    GradientAccumulation(std::size_t accumulation_steps, std::size_t batches_per_epoch);  // std::invalid_argument for 0 steps
    // One batch: forward (through `trunk` when given, as train_classifier_step), backward, the
    // gradients added, the optimizer's step when due. Returns the batch's loss (before the division).
    float step(GPTModel& model, ClassifierAdamW& optimizer, const ClassificationBatch& batch, const Readout& readout = {},
               StepKernels kernels = StepKernels::fast, FrozenTrunk* trunk = nullptr);
    float step(GPTModel& model, LoRAAdamW& optimizer, const ClassificationBatch& batch, const Readout& readout = {},
               StepKernels kernels = StepKernels::fast);

private:
    bool update_due();          // this batch's is_update_step; counts it
    float grad_output() const;  // 1 / accumulation_steps as a float
    std::size_t steps_, batches_, batch_idx_ = 0;
    std::optional<ClassifierGrads> grads_;  // None after zero_grad()
    std::optional<LoRAClassifierGrads> lora_grads_;
};

struct ClassifierHistory {
    std::vector<double> train_losses, val_losses, train_accs, val_accs;
    std::size_t examples_seen = 0;
};

// train_classifier_simple(model, train_loader, val_loader, optimizer, device, num_epochs,
// eval_freq, eval_iter[, trainable_token_pos, ignore_index, average_embeddings]): each line it prints goes to `print` (without its
// newline); `gen` is torch's global generator (the loaders' draws, dropout). The steps and the
// evaluations go through `trunk`, or one of their own (frozen_trunk(model, optimizer.layers())):
// pass one to keep it for evaluations after the loop.
ClassifierHistory train_classifier_simple(GPTModel& model, const ClassificationLoader& train_loader,
                                          const ClassificationLoader& val_loader, ClassifierAdamW& optimizer,
                                          Generator& gen, std::size_t num_epochs, std::size_t eval_freq,
                                          std::size_t eval_iter, const std::function<void(const std::string&)>& print,
                                          const Readout& readout = {}, FrozenTrunk* trunk = nullptr);
// The same loop with appendix E's optimizer (train_lora_classifier_step each batch).
ClassifierHistory train_classifier_simple(GPTModel& model, const ClassificationLoader& train_loader,
                                          const ClassificationLoader& val_loader, LoRAAdamW& optimizer,
                                          Generator& gen, std::size_t num_epochs, std::size_t eval_freq,
                                          std::size_t eval_iter, const std::function<void(const std::string&)>& print,
                                          const Readout& readout = {});
// The loop itself, any training step; the evaluations read the logits as `readout` says, through
// `trunk` when given.
ClassifierHistory train_classifier_simple(GPTModel& model, const ClassificationLoader& train_loader,
                                          const ClassificationLoader& val_loader,
                                          const std::function<void(const ClassificationBatch&)>& train_step, Generator& gen,
                                          std::size_t num_epochs, std::size_t eval_freq, std::size_t eval_iter,
                                          const std::function<void(const std::string&)>& print, const Readout& readout = {},
                                          FrozenTrunk* trunk = nullptr);

}  // namespace llmfs
