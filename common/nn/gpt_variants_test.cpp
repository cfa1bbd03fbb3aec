// The bonus folders' GPT variants (attention_variants.hpp, gpt_variants.hpp) on tiny models: the
// attention kernel against a naive reference, generation with and without the cache, the caches'
// bytes against the memory estimators, and the pieces (silu's tail, topk, argmax). The programs
// themselves are checked against the scripts' own runs ("script: ch04_*" in tests/CMakeLists.txt).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "llmfs/nn/gpt_variants.hpp"
#include "llmfs/nn/memory_estimate.hpp"

using namespace llmfs;

namespace {

// softmax(q k^T / sqrt(hs), masked) v in double precision, one head at a time
std::vector<float> naive_attention(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                                   std::size_t T, std::size_t Tk, std::size_t NH, std::size_t G, std::size_t hs,
                                   std::int64_t q_start, std::int64_t k_start, std::optional<std::int64_t> window) {
    std::vector<float> out(T * NH * hs);
    for (std::size_t h = 0; h < NH; ++h) {
        const std::size_t g = h / (NH / G);
        for (std::size_t i = 0; i < T; ++i) {
            std::vector<double> w(Tk, 0.0);
            double max = -std::numeric_limits<double>::infinity(), sum = 0;
            for (std::size_t j = 0; j < Tk; ++j) {
                const std::int64_t diff = q_start + static_cast<std::int64_t>(i) - k_start - static_cast<std::int64_t>(j);
                if (diff < 0 || (window && diff >= *window)) {
                    w[j] = -std::numeric_limits<double>::infinity();
                    continue;
                }
                double s = 0;
                for (std::size_t d = 0; d < hs; ++d) s += double(q[i * NH * hs + h * hs + d]) * k[j * G * hs + g * hs + d];
                w[j] = s / std::sqrt(double(hs));
                max = std::max(max, w[j]);
            }
            for (auto& x : w) sum += x = std::exp(x - max);
            for (std::size_t d = 0; d < hs; ++d) {
                double acc = 0;
                for (std::size_t j = 0; j < Tk; ++j) acc += w[j] / sum * v[j * G * hs + g * hs + d];
                out[i * NH * hs + h * hs + d] = static_cast<float>(acc);
            }
        }
    }
    return out;
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist;
    std::vector<float> x(n);
    for (auto& v : x) v = dist(rng);
    return x;
}

VariantConfig tiny(AttentionKind attention, FeedForwardKind ff = FeedForwardKind::gelu) {
    VariantConfig cfg;
    cfg.vocab_size = 101;
    cfg.context_length = 24;
    cfg.emb_dim = 24;
    cfg.n_heads = 4;
    cfg.n_layers = 3;
    cfg.attention = attention;
    cfg.n_kv_groups = 2;
    cfg.latent_dim = 8;
    cfg.sliding_window_size = 5;
    cfg.sliding_window_stride = 1;
    cfg.feed_forward = ff;
    cfg.hidden_dim = ff == FeedForwardKind::gelu ? 4 * cfg.emb_dim : 20;
    if (ff == FeedForwardKind::moe) cfg.num_experts = 4, cfg.num_experts_per_tok = 2;
    return cfg;
}

std::vector<std::int64_t> generate(const VariantConfig& cfg, bool use_cache, std::size_t* cache_bytes = nullptr) {
    Generator gen;
    gen.manual_seed(123);
    VariantGPTModel model(gen, cfg);
    const auto ids = generate_variant(model, {3, 14, 15, 92}, cfg.context_length - 4, use_cache);
    if (cache_bytes) *cache_bytes = model.kv_cache_bytes();
    return ids;
}

}  // namespace

TEST_CASE("attend: the fast causal path and the masked rows against a naive reference") {
    const std::size_t NH = 4, hs = 8;
    struct Case {
        std::size_t T, Tk, G;
        std::int64_t q_start, k_start;
        std::optional<std::int64_t> window;
    };
    for (const Case& c : {Case{5, 5, 4, 0, 0, std::nullopt}, Case{1, 9, 2, 8, 0, std::nullopt}, Case{3, 12, 1, 9, 0, 7},
                          Case{6, 6, 2, 0, 0, 2}, Case{1, 4, 4, 20, 17, 4}, Case{4, 4, 4, 0, 0, 1}}) {
        INFO("T " << c.T << " Tk " << c.Tk << " G " << c.G << " window " << (c.window ? *c.window : -1));
        const auto q = random_floats(c.T * NH * hs, 1), k = random_floats(c.Tk * c.G * hs, 2), v = random_floats(c.Tk * c.G * hs, 3);
        const auto fast = attend(q.data(), k.data(), v.data(), c.T, c.Tk, NH, c.G, hs, c.q_start, c.k_start, c.window);
        const auto ref = naive_attention(q, k, v, c.T, c.Tk, NH, c.G, hs, c.q_start, c.k_start, c.window);
        for (std::size_t i = 0; i < ref.size(); ++i) CHECK(fast[i] == Approx(ref[i]).margin(1e-5));
    }
}

TEST_CASE("attend: a window that masks every key gives NaN, as softmax over -inf does") {
    const auto q = random_floats(8, 1), k = random_floats(8, 2), v = random_floats(8, 3);
    const auto out = attend(q.data(), k.data(), v.data(), 1, 1, 1, 1, 8, 0, 0, 0);
    CHECK(std::isnan(out[0]));
}

TEST_CASE("HeadMajorCache: the script's token-major rows head by head, through growth, drops and moves") {
    const std::size_t G = 3, hs = 4;
    HeadMajorCache cache(G, hs);
    std::vector<float> script;  // the script's cache, token-major [T_cached, G * hs]
    const auto check_same = [&] {
        const std::size_t T = script.size() / (G * hs);
        REQUIRE(cache.size() == T);
        CHECK(cache.bytes() == script.size() * sizeof(float));
        const HeadRows rows = cache.rows();
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t g = 0; g < G; ++g)
                for (std::size_t d = 0; d < hs; ++d) CHECK(rows.data[g * rows.head_stride + t * hs + d] == script[(t * G + g) * hs + d]);
    };
    cache.reserve(4);
    // Appends of 3 and 1 fill the reserved room, the next 1 grows it to 8, 2 more fill 7 of those.
    // From the fifth append on a window of 5 is kept after each (combined_k[:, -5:]), so the rows
    // move back to the front of the 8 whenever a new one reaches the end.
    const std::vector<std::size_t> appends{3, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    for (std::size_t i = 0; i < appends.size(); ++i) {
        const std::size_t T = appends[i];
        const auto rows = random_floats(T * G * hs, 10 + static_cast<unsigned>(i));
        cache.append(rows.data(), T);
        script.insert(script.end(), rows.begin(), rows.end());
        check_same();
        if (i >= 4) {
            cache.keep_last(5);
            script.erase(script.begin(), script.end() - static_cast<std::ptrdiff_t>(5 * G * hs));
            check_same();
        }
    }
    CHECK_THROWS_AS(cache.keep_last(6), std::logic_error);
    cache.clear();
    script.clear();
    check_same();
}

TEST_CASE("attend: a head-major cache gives the token-major layout's bits") {
    // By design on every OpenBLAS kernel: token-major rows are copied head-major before the products,
    // so both sides make the same BLAS calls with the same arguments (AVX-512 kernels round a product
    // differently for another leading dimension: OPENBLAS_CORETYPE=SkylakeX failed this test when the
    // token-major rows were read in place).
    const std::size_t NH = 4, G = 2, hs = 8, Tk = 11, dropped = 3;
    HeadMajorCache keys(G, hs), values(G, hs);
    const auto k = random_floats(Tk * G * hs, 5), v = random_floats(Tk * G * hs, 6);
    keys.append(k.data(), Tk);
    values.append(v.data(), Tk);
    for (const std::size_t T : {1, 3}) {
        const auto q = random_floats(T * NH * hs, 7);
        const std::size_t from = Tk - T;  // the causal prefix path, then a window's masked rows over the last keys
        CHECK(attend(q.data(), keys.rows(), values.rows(), T, Tk, NH, G, hs, static_cast<std::int64_t>(from), 0, std::nullopt) ==
              attend(q.data(), k.data(), v.data(), T, Tk, NH, G, hs, static_cast<std::int64_t>(from), 0, std::nullopt));
        CHECK(attend(q.data(), keys.rows(dropped), values.rows(dropped), T, Tk - dropped, NH, G, hs, static_cast<std::int64_t>(from),
                     static_cast<std::int64_t>(dropped), 4) ==
              attend(q.data(), k.data() + dropped * G * hs, v.data() + dropped * G * hs, T, Tk - dropped, NH, G, hs,
                     static_cast<std::int64_t>(from), static_cast<std::int64_t>(dropped), 4));
    }
}

TEST_CASE("generation: the KV cache gives the tokens of the uncached forward, every variant") {
    for (const auto attention : {AttentionKind::mha, AttentionKind::gqa, AttentionKind::mla, AttentionKind::swa}) {
        INFO("attention " << static_cast<int>(attention));
        const VariantConfig cfg = tiny(attention);
        CHECK(generate(cfg, true) == generate(cfg, false));
    }
    for (const auto ff : {FeedForwardKind::swiglu, FeedForwardKind::moe}) {
        INFO("feed-forward " << static_cast<int>(ff));
        const VariantConfig cfg = tiny(AttentionKind::mha, ff);
        CHECK(generate(cfg, true) == generate(cfg, false));
    }
}

TEST_CASE("generation: --emb_dim 0 gives token 0 every step, with and without the cache, every variant") {
    // Every activation is [T, 0]; the logits are out_head's empty sums, all 0, and argmax picks the
    // first (PyTorch prints the same: the scripts' goldens with --emb_dim 0). Here for the sanitizers.
    auto zero_width = [](AttentionKind attention, FeedForwardKind ff) {
        VariantConfig cfg = tiny(attention, ff);
        cfg.emb_dim = 0;
        if (ff == FeedForwardKind::gelu) cfg.hidden_dim = 0;
        return cfg;
    };
    const std::vector<std::int64_t> expected = {3, 14, 15, 92, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (const auto& [attention, ff] : {std::pair{AttentionKind::mha, FeedForwardKind::gelu}, {AttentionKind::gqa, FeedForwardKind::gelu},
                                        {AttentionKind::mla, FeedForwardKind::gelu}, {AttentionKind::swa, FeedForwardKind::gelu},
                                        {AttentionKind::mha, FeedForwardKind::swiglu}, {AttentionKind::mha, FeedForwardKind::moe}}) {
        INFO("attention " << static_cast<int>(attention) << ", feed-forward " << static_cast<int>(ff));
        const VariantConfig cfg = zero_width(attention, ff);
        std::size_t cache_bytes = 1;
        CHECK(generate(cfg, true, &cache_bytes) == expected);
        // K and V are [T, 0]; MLA's latent is sized by --latent_dim, not --emb_dim (every position cached)
        CHECK(cache_bytes == (attention == AttentionKind::mla ? cfg.n_layers * cfg.context_length * cfg.latent_dim * sizeof(float) : 0));
        CHECK(generate(cfg, false) == expected);
    }
}

TEST_CASE("MLA's absorbed decode step: the script's keys and values within rounding, with and without biases") {
    const std::size_t C = 48, NH = 4;
    for (const bool bias : {false, true}) {
        for (const std::size_t L : {std::size_t{1}, std::size_t{7}, std::size_t{16}, std::size_t{96}}) {
            INFO("bias " << bias << " latent " << L);
            Generator gen_a, gen_b;
            gen_a.manual_seed(7);
            gen_b.manual_seed(7);
            MultiHeadLatentAttention script(gen_a, C, C, NH, L, bias), absorbed(gen_b, C, C, NH, L, bias);
            script.absorbed_decode = false;
            const auto prompt = random_floats(5 * C, 11);
            Array<2> x = Array<2>::from_shape({5, C});
            std::copy(prompt.begin(), prompt.end(), x.begin());
            const bool same_prompt = absorbed.forward(x, true) == script.forward(x, true);
            CHECK(same_prompt);  // the prompt: the script's form in both
            for (unsigned step = 0; step < 6; ++step) {
                const auto token = random_floats(C, 20 + step);
                Array<2> t = Array<2>::from_shape({1, C});
                std::copy(token.begin(), token.end(), t.begin());
                const Array<2> expected = script.forward(t, true), fast = absorbed.forward(t, true);
                for (std::size_t i = 0; i < C; ++i) CHECK(fast(0, i) == Approx(expected(0, i)).margin(1e-5));
            }
            CHECK(absorbed.cache_bytes() == script.cache_bytes());  // the same latent cache: 11 tokens of L floats
            CHECK(absorbed.cache_bytes() == 11 * L * sizeof(float));
        }
    }
}

TEST_CASE("generation: MLA's absorbed decode gives the script form's tokens") {
    struct Case {
        std::size_t emb, heads, layers, latent;
        std::int64_t context;
    };
    for (const Case& c : {Case{24, 4, 3, 8, 24}, Case{24, 4, 3, 1, 24}, Case{96, 12, 2, 7, 48}, Case{192, 12, 4, 24, 64},
                          Case{192, 6, 2, 192, 64}}) {
        INFO("emb " << c.emb << " heads " << c.heads << " layers " << c.layers << " latent " << c.latent);
        VariantConfig cfg = tiny(AttentionKind::mla);
        cfg.vocab_size = 503;
        cfg.emb_dim = c.emb, cfg.n_heads = c.heads, cfg.n_layers = c.layers, cfg.latent_dim = c.latent;
        cfg.context_length = c.context, cfg.hidden_dim = 4 * c.emb;
        const auto absorbed = generate(cfg, true);
        cfg.mla_absorbed_decode = false;
        CHECK(absorbed == generate(cfg, true));
        CHECK(absorbed == generate(cfg, false));
    }
}

TEST_CASE("generation: a sliding window no shorter than the text is plain multi-head attention") {
    VariantConfig swa = tiny(AttentionKind::swa);
    swa.sliding_window_size = swa.context_length;
    swa.sliding_window_stride = -1;  // every layer
    CHECK(generate(swa, true) == generate(tiny(AttentionKind::mha), true));
    swa.sliding_window_size = 3;
    CHECK(generate(swa, true) != generate(tiny(AttentionKind::mha), true));
}

TEST_CASE("uses_sliding_window: K window layers, then one regular") {
    CHECK_FALSE(uses_sliding_window(0, 0));
    CHECK(uses_sliding_window(-1, 7));
    const std::vector<bool> k2{true, true, false, true, true, false};
    for (std::size_t i = 0; i < k2.size(); ++i) CHECK(uses_sliding_window(2, i) == k2[i]);
}

TEST_CASE("the caches hold what the memory estimators predict") {
    const VariantConfig base = tiny(AttentionKind::mha);
    const std::int64_t T = base.context_length, C = base.emb_dim, NH = base.n_heads, L = base.n_layers;
    std::size_t bytes = 0;
    generate(base, true, &bytes);
    CHECK(static_cast<std::int64_t>(bytes) == calc_kv_bytes_total(1, T, C, NH, NH, L, 4));  // the MHA line
    generate(tiny(AttentionKind::gqa), true, &bytes);
    // the estimator's n_kv_groups is heads per K/V head: 4 heads on 2 K/V heads is its n_kv_groups 2
    CHECK(static_cast<std::int64_t>(bytes) == calc_kv_bytes_total(1, T, C, NH, NH / 2, L, 4));
    generate(tiny(AttentionKind::mla), true, &bytes);
    CHECK(static_cast<std::int64_t>(bytes) == calc_mla_bytes_total(1, T, L, 8, 4));
    // SWA, window 5 in the stride-1 layers (0 and 2), full in layer 1: memory_estimator_swa's
    // mixed total with W = 5 and 2 SWA + 1 full layers
    generate(tiny(AttentionKind::swa), true, &bytes);
    const std::int64_t per_token = (C / NH) * NH * 2 * 4;
    CHECK(static_cast<std::int64_t>(bytes) == 2 * 5 * per_token + 1 * T * per_token);
}

TEST_CASE("variant_model_bytes: the parameters and the full cache, counted from the config alone") {
    for (const auto& [attention, ff] : {std::pair{AttentionKind::mha, FeedForwardKind::gelu}, {AttentionKind::gqa, FeedForwardKind::gelu},
                                        {AttentionKind::mla, FeedForwardKind::gelu}, {AttentionKind::swa, FeedForwardKind::gelu},
                                        {AttentionKind::mha, FeedForwardKind::swiglu}, {AttentionKind::mha, FeedForwardKind::moe}}) {
        INFO("attention " << static_cast<int>(attention) << ", feed-forward " << static_cast<int>(ff));
        VariantConfig cfg = tiny(attention, ff);
        cfg.sliding_window_size = 100;  // no shorter than the text: SWA's cache fills as MHA's
        Generator gen;
        gen.manual_seed(123);
        VariantGPTModel model(gen, cfg);
        generate_variant(model, {3, 14, 15, 92}, cfg.context_length - 4, true);
        CHECK(variant_model_bytes(cfg) == static_cast<double>(model.num_parameters() * sizeof(float) + model.kv_cache_bytes()));
    }
    VariantConfig huge;  // the 124M model with ten billion layers: counted, not built
    huge.n_layers = 10'000'000'000;
    huge.context_length = 204;
    CHECK(variant_model_bytes(huge) > 2.9e17);  // about 30 MB a layer
}

TEST_CASE("silu_inplace: x / (1 + exp(-x)), SLEEF's exp in blocks of 16 and expf for the tail") {
    auto x = random_floats(37, 4);
    auto y = x;
    silu_inplace(y.data(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(y[i] == Approx(x[i] / (1.0 + std::exp(-double(x[i])))).epsilon(1e-6));
    for (std::size_t i = 32; i < x.size(); ++i) CHECK(y[i] == x[i] / (1.0f + std::exp(-x[i])));  // the tail, bit for bit
}

TEST_CASE("topk_indices picks as torch.topk does") {
    const float s[] = {0.5f, 2.0f, -1.0f, 2.0f, 1.0f};
    CHECK(topk_indices(s, 5, 3) == std::vector<std::size_t>{1, 3, 4});
    CHECK(topk_indices(s, 5, 0).empty());
    CHECK_THROWS_WITH(topk_indices(s, 5, 6), "RuntimeError: selected index k out of range");
}

TEST_CASE("the scripts' assertions, before anything is drawn") {
    VariantConfig cfg = tiny(AttentionKind::gqa);
    cfg.n_kv_groups = 3;
    Generator gen;
    CHECK_THROWS_WITH(VariantGPTModel(gen, cfg), "AssertionError: num_heads must be divisible by num_kv_groups");
    cfg.n_heads = 5;
    CHECK_THROWS_WITH(VariantGPTModel(gen, cfg), "AssertionError: d_out must be divisible by num_heads");
    cfg = tiny(AttentionKind::mha, FeedForwardKind::moe);
    cfg.num_experts_per_tok = 5;
    VariantGPTModel moe(gen, cfg);
    CHECK_THROWS_WITH(generate_variant(moe, {1, 2}, 1, true), "RuntimeError: selected index k out of range");
}
