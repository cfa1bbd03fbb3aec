#!/usr/bin/env bash
# docs/performance.md's table for the bonus scripts' GPTs (issue 18): ROUNDS rounds, in each of which every
# variant runs in PyTorch 1.13 (the book's script in float32, tools/bench_pytorch.py variant) and
# then in llmfs (llmfs-bench variants --variant V), one program per process, then chapter 4's GPT
# the same way (generate --kv-cache). Prints each run as it goes, then the table: medians of the
# rounds with the range, and each llmfs run's share of its bound with the bandwidth it was measured
# at (peak RSS in MB of 10^6 bytes: PyTorch's from /usr/bin/time, llmfs's as llmfs-bench reports
# it). Needs a Release build in build/, /usr/bin/python3 with torch, and BOOK, a checkout of
# rasbt/LLMs-from-scratch. About 2 minutes a round on a 2-core machine; run nothing else meanwhile.
#
#   log=$(mktemp) && bash tools/bench_variants.sh BOOK [ROUNDS] | tee "$log"
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  echo "usage: bash tools/bench_variants.sh BOOK [ROUNDS]  (BOOK: a checkout of rasbt/LLMs-from-scratch, with ch04/; ROUNDS: 1 or more, default 3)" >&2
  [ -n "${1:-}" ] && echo "bench_variants.sh: $1" >&2
  exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
[ -d "$1/ch04" ] || usage "no ch04/ in '$1'"
book=$1
rounds=${2:-3}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || usage "ROUNDS must be a whole number from 1, not '$rounds'"
bench=build/bin/llmfs-bench
[ -x "$bench" ] || { echo "bench_variants.sh: $bench not found: build first (README, \"Two commands\")" >&2; exit 1; }
runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
rss() { sed -n 's/^peak_kb //p' "$1"; }  # the line /usr/bin/time -o writes
for round in $(seq "$rounds"); do
  echo "== round $round ($(date -u +%H:%M:%S))"
  for pair in mha:ch04_kv_mha gqa:ch04_gqa mla:ch04_mla swa:ch04_swa ffn:ch04_kv_ffn moe:ch04_moe generate:generate; do
    variant=${pair%%:*} program=${pair#*:}
    err=$(mktemp)
    if [ "$variant" = generate ]; then
      torch=$(/usr/bin/time -f "peak_kb %M" -o "$err" /usr/bin/python3 tools/bench_pytorch.py generate --tokens 200 --kv-cache)
      llmfs=$("$bench" generate --tokens 200 --kv-cache --json)
    else
      torch=$(/usr/bin/time -f "peak_kb %M" -o "$err" /usr/bin/python3 tools/bench_pytorch.py variant --book "$book" "$program")
      llmfs=$("$bench" variants --variant "$variant" --json)
    fi
    torch_rate=$(sed -n 's/.*decode \([0-9.]*\) tokens\/s.*/\1/p' <<<"$torch" | head -1)
    echo "-- $program: PyTorch $torch_rate tokens/s, peak $(rss "$err") KB"
    /usr/bin/python3 - "$program" "$torch_rate" "$(rss "$err")" "$llmfs" >>"$runs" <<'EOF'
import json, sys
name, torch_rate, torch_kb, report = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
v = report["variants"][0] if "variants" in report else report
print(json.dumps({"program": name, "torch": torch_rate, "torch_rss_mb": torch_kb / 1e3,
                  "llmfs": v["decode_tokens_per_s"], "share": v["share_of_bound"],
                  "gbps": v["read_bandwidth_bytes_per_s"] / 1e9, "rss_mb": v["peak_rss_bytes"] / 1e6,
                  "kv": v.get("kv_cache_bytes"), "estimator": v.get("estimator_kv_bytes")}))
EOF
    tail -1 "$runs" | sed 's/^/   llmfs /'
    rm -f "$err"
  done
done
/usr/bin/python3 - "$runs" <<'EOF'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
programs = list(dict.fromkeys(r["program"] for r in runs))
def med(xs, bold=False):
    m = f"{statistics.median(xs):.1f}"
    return f"{'**' + m + '**' if bold else m} ({min(xs):.1f} to {max(xs):.1f})"
print()
print("| program (defaults) | PyTorch 1.13, float32 | llmfs | speed-up | share of the bound: median, each run (GB/s) "
      "| KV cache = estimator | peak RSS, PyTorch / llmfs |")
print("|---|---|---|---|---|---|---|")
for p in programs:
    rs = [r for r in runs if r["program"] == p]
    torch, llmfs = [r["torch"] for r in rs], [r["llmfs"] for r in rs]
    shares = ", ".join(f"{100 * r['share']:.0f} at {r['gbps']:.0f}" for r in rs)
    kv = rs[0]["kv"]
    cache = "" if kv is None else f"{kv:,} B" + ("" if all(r["kv"] == r["estimator"] for r in rs) else " (NOT the estimator's)")
    label = "chapter 4's GPT (`generate --kv-cache`)" if p == "generate" else f"`{p}`"
    print(f"| {label} | {med(torch)} | {med(llmfs, bold=True)} | {statistics.median(llmfs) / statistics.median(torch):.1f}x "
          f"| {100 * statistics.median(r['share'] for r in rs):.0f}% ({shares}) | {cache or 'n/a'} "
          f"| {statistics.median(r['torch_rss_mb'] for r in rs):,.0f} / {statistics.median(r['rss_mb'] for r in rs):,.0f} MB |")
EOF
