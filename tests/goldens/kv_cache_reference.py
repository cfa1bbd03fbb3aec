"""The book's KV-cache bonus script (ch04/03_kv-cache/gpt_with_kv_cache.py) under real PyTorch:
the reference for ch04_kv_cache.

    (cd tests/goldens && /usr/bin/python3 kv_cache_reference.py) > data/golden/default/ch04_kv_cache.txt

The model is chapter 4's GPTModel with the bonus changes: each MultiHeadAttention keeps cache_k /
cache_v (grown by torch.cat), GPTModel keeps current_pos for the position ids, and
generate_text_simple_cached feeds the prompt once, then one token per step. It runs in eval mode,
so no dropout is drawn and the output is the same for both Bernoulli kernels. As in the C++
program, the timing lines go to stderr so stdout is the golden. tools/bench_pytorch.py imports
these classes for the PyTorch side of docs/performance.md's tables.
"""
import sys
import time

import torch
import torch.nn as nn

import ch04_reference as ch04
from ch03_reference import MultiHeadAttention


class MultiHeadAttentionCached(MultiHeadAttention):
    """Chapter 3's class (same parameters, drawn in the same order) plus cache_k / cache_v."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register_buffer("cache_k", None, persistent=False)
        self.register_buffer("cache_v", None, persistent=False)

    def forward(self, x, use_cache=False):
        b, num_tokens, _ = x.shape
        keys_new = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)
        values_new = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim)
        if use_cache:
            if self.cache_k is None:
                self.cache_k, self.cache_v = keys_new, values_new
            else:
                self.cache_k = torch.cat([self.cache_k, keys_new], dim=1)
                self.cache_v = torch.cat([self.cache_v, values_new], dim=1)
            keys, values = self.cache_k, self.cache_v
        else:
            keys, values = keys_new, values_new
        keys, queries, values = keys.transpose(1, 2), queries.transpose(1, 2), values.transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        # as the bonus code: the mask is cut to the new tokens (all the prompt, or one token)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None


class TransformerBlockCached(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttentionCached(
            d_in=cfg["emb_dim"], d_out=cfg["emb_dim"], context_length=cfg["context_length"],
            num_heads=cfg["n_heads"], dropout=cfg["drop_rate"], qkv_bias=cfg["qkv_bias"])
        self.ff = ch04.FeedForward(cfg)
        self.norm1 = ch04.LayerNorm(cfg["emb_dim"])
        self.norm2 = ch04.LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x, use_cache=False):
        x = x + self.drop_shortcut(self.att(self.norm1(x), use_cache=use_cache))
        return x + self.drop_shortcut(self.ff(self.norm2(x)))


class GPTModelCached(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.ModuleList([TransformerBlockCached(cfg) for _ in range(cfg["n_layers"])])
        self.current_pos = 0
        self.final_norm = ch04.LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx, use_cache=False):
        _, seq_len = in_idx.shape
        if use_cache:
            pos_ids = torch.arange(self.current_pos, self.current_pos + seq_len, dtype=torch.long)
            self.current_pos += seq_len
        else:
            pos_ids = torch.arange(0, seq_len, dtype=torch.long)
        x = self.drop_emb(self.tok_emb(in_idx) + self.pos_emb(pos_ids).unsqueeze(0))
        for blk in self.trf_blocks:
            x = blk(x, use_cache=use_cache)
        return self.out_head(self.final_norm(x))

    def reset_kv_cache(self):
        for blk in self.trf_blocks:
            blk.att.reset_cache()
        self.current_pos = 0


def generate_text_simple_cached(model, idx, max_new_tokens):
    model.eval()
    model.reset_kv_cache()
    with torch.no_grad():
        logits = model(idx, use_cache=True)  # the prompt fills the cache
        for _ in range(max_new_tokens):
            next_idx = logits[:, -1].argmax(dim=-1, keepdim=True)
            idx = torch.cat([idx, next_idx], dim=1)
            logits = model(next_idx, use_cache=True)
    return idx


def main():
    torch.manual_seed(123)
    model = GPTModelCached(ch04.GPT_CONFIG_124M)
    model.eval()
    start_context = "Hello, I am"
    tok = ch04.tokenizer()
    encoded = tok.encode(start_context)
    encoded_tensor = torch.tensor(encoded).unsqueeze(0)

    print(f"\n{50*'='}\n{22*' '}IN\n{50*'='}")
    print("\nInput text:", start_context)
    print("Encoded input text:", encoded)
    print("encoded_tensor.shape:", encoded_tensor.shape)

    start = time.time()
    token_ids = generate_text_simple_cached(model=model, idx=encoded_tensor, max_new_tokens=200)
    total_time = time.time() - start
    decoded_text = tok.decode(token_ids.squeeze(0).tolist())

    print(f"\n\n{50*'='}\n{22*' '}OUT\n{50*'='}")
    print("\nOutput:", token_ids)
    print("Output length:", len(token_ids[0]))
    print("Output text:", decoded_text)
    print(f"\nTime: {total_time:.2f} sec", file=sys.stderr)
    print(f"{int(len(token_ids[0])/total_time)} tokens/sec", file=sys.stderr)


if __name__ == "__main__":
    main()
