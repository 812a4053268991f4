"""Exact logits of SmolLM2-135M-Instruct, for the engine's tests.

Every weight is dequantized by the `gguf` package (llama.cpp's own Python
package, version 0.17.1) and the Llama forward pass is evaluated in float64
with numpy, without any quantization of activations: the value the engine's
arithmetic approximates. For each sequence (a prompt and llama.cpp's greedy
continuation, from ../llamacpp/smollm2-greedy.jsonl) it writes, at every
position from the prompt's last token on, the 20 highest logits and the
log-sum-exp of all of them.

    python float64.py MODEL.gguf ../llamacpp/smollm2-greedy.jsonl > smollm2-float64.jsonl
"""
import json
import sys

import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize

STEPS = 8          # generated tokens fed per prompt
PROMPTS = [0, 1, 2, 3, 4, 5, 10, 12, 13]  # which recorded prompts


def main(model, greedy):
    r = GGUFReader(model)
    tensors = {t.name: t for t in r.tensors}

    def field(key):
        f = r.fields[key]
        return f.parts[f.data[0]][0]

    dim = int(field("llama.embedding_length"))
    hidden = int(field("llama.feed_forward_length"))
    layers = int(field("llama.block_count"))
    heads = int(field("llama.attention.head_count"))
    kv_heads = int(field("llama.attention.head_count_kv"))
    theta = float(field("llama.rope.freq_base"))
    eps = float(field("llama.attention.layer_norm_rms_epsilon"))
    hs = dim // heads

    def w(name, rows=None):
        t = tensors[name]
        a = dequantize(t.data, t.tensor_type).astype(np.float64)
        return a.reshape(rows, -1) if rows else a.reshape(-1)

    emb = w("token_embd.weight", int(tensors["token_embd.weight"].shape[1]))
    blocks = []
    for l in range(layers):
        g = lambda n, rows=None: w(f"blk.{l}.{n}.weight", rows)
        blocks.append(dict(an=g("attn_norm"), fn=g("ffn_norm"), q=g("attn_q", dim), k=g("attn_k", kv_heads * hs),
                           v=g("attn_v", kv_heads * hs), o=g("attn_output", dim), gate=g("ffn_gate", hidden),
                           down=g("ffn_down", dim), up=g("ffn_up", hidden)))
    out_norm = w("output_norm.weight")

    def rms(x, gain):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gain

    def rope(v, n):
        # Adjacent pairs (2i, 2i+1) of each head turn by pos * theta^(-2i/hs).
        v = v.reshape(n, -1, hs // 2, 2)
        pos = np.arange(n)[:, None, None]
        ang = pos * theta ** (-np.arange(0, hs, 2) / hs)[None, None, :]
        c, s = np.cos(ang), np.sin(ang)
        a, b = v[..., 0], v[..., 1]
        return np.stack([a * c - b * s, a * s + b * c], axis=-1).reshape(n, -1)

    for i, line in enumerate(open(greedy)):
        if i not in PROMPTS:
            continue
        run = json.loads(line)
        ids = run["prompt_ids"] + [s["id"] for s in run["steps"][:STEPS]]
        n = len(ids)
        x = emb[ids]
        mask = np.triu(np.full((n, n), -np.inf), 1)
        for b in blocks:
            xb = rms(x, b["an"])
            q, k, v = rope(xb @ b["q"].T, n), rope(xb @ b["k"].T, n), xb @ b["v"].T
            att = np.zeros((n, dim))
            for h in range(heads):
                kh = h // (heads // kv_heads)
                qh, khd, vh = q[:, h * hs:(h + 1) * hs], k[:, kh * hs:(kh + 1) * hs], v[:, kh * hs:(kh + 1) * hs]
                s = qh @ khd.T / np.sqrt(hs) + mask
                s = np.exp(s - s.max(axis=1, keepdims=True))
                att[:, h * hs:(h + 1) * hs] = (s / s.sum(axis=1, keepdims=True)) @ vh
            x = x + att @ b["o"].T
            xb = rms(x, b["fn"])
            gate = xb @ b["gate"].T
            x = x + (gate / (1 + np.exp(-gate)) * (xb @ b["up"].T)) @ b["down"].T
        logits = rms(x, out_norm) @ emb.T
        steps = []
        for p in range(len(run["prompt_ids"]) - 1, n):
            z = logits[p]
            top = np.lexsort((np.arange(len(z)), -z))[:20]
            mx = z.max()
            steps.append({"position": p, "lse": float(f"{mx + np.log(np.exp(z - mx).sum()):.7g}"),
                          "top": [[int(t), float(f"{z[t]:.7g}")] for t in top]})
        print(json.dumps({"prompt": run["prompt"], "ids": ids, "steps": steps}, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
