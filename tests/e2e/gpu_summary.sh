#!/usr/bin/env bash
# analysis/gpu_summary.py, which jobs/gpu-check.sh runs after every step, on a committed GPU
# check's JSON (no GPU needed): the summary as before when the reports have no phases, and with
# phases (as secpe bench writes them on a GPU: figures.phases, *_traffic.phases) a table of where
# the time went, a row per phase that took time and the totals; a check cut short still summarises.
source "$(dirname "$0")/lib/preamble.sh"
FIXTURE=$SRC/analysis/figures/gpu/2026-11-26-h100-2339d09
[ -f "$FIXTURE/kernel_cuda.json" ] || fail "the fixture $FIXTURE is missing"

cp "$FIXTURE"/*.json "$FIXTURE/steps.txt" "$T/"
python3 "$SRC/analysis/gpu_summary.py" "$T" || fail "the summary failed on reports without phases"
grep -q "secpe_iteration_le_20ms" "$T/summary.md" || fail "no targets in summary.md"
grep -q "Where the time went" "$T/summary.md" && fail "a phase table without any phases"

python3 - "$T" <<'PY' || fail "could not add phases to the fixture"
import json, sys
out = sys.argv[1]
def phases(scale):
    host = {"host_plan": 0.004 * scale, "host_stage": 0.006 * scale, "host_wait": 0.03 * scale, "host_collect": 0.0,
            "host_check": 0.001 * scale, "host_release": 0.0, "host_release_norms": 0.0, "host_sums": 0.0}
    device = {"upload": 0.005 * scale, "gemm": 0.015 * scale, "select": 0.01 * scale, "rescore": 0.002 * scale,
              "release": 0.0, "sums": 0.0, "download": 0.0005 * scale}
    return {"host": host, "device": device, "host_seconds": sum(host.values()), "device_seconds": sum(device.values())}
k = json.load(open(f"{out}/kernel_cuda.json"))
k["figures"]["phases"] = phases(1)
json.dump(k, open(f"{out}/kernel_cuda.json", "w"))
h = json.load(open(f"{out}/histogram_cuda.json"))
h["figures"]["secpe"]["iteration_traffic"]["phases"] = phases(2)
json.dump(h, open(f"{out}/histogram_cuda.json", "w"))
PY
rm "$T/kernel_cuda_tf32.json"  # a check cut short
python3 "$SRC/analysis/gpu_summary.py" "$T" || fail "the summary failed on reports with phases"
grep -q "Where the time went" "$T/summary.md" || fail "no phase table: $(cat "$T/summary.md")"
grep -q "| phase | kernel fp32 (per search) | SecPE iteration |" "$T/summary.md" || fail "the table's columns: $(grep '| phase' "$T/summary.md")"
grep -q "| host: host_wait | 0.03 | 0.06 |" "$T/summary.md" || fail "the host_wait row: $(cat "$T/summary.md")"
grep -q "| device: gemm | 0.015 | 0.03 |" "$T/summary.md" || fail "the gemm row"
grep -q "host_collect" "$T/summary.md" && fail "a phase that took no time has a row"
grep -q "| \*\*device total\*\* | 0.0325 | 0.065 |" "$T/summary.md" || fail "the device total: $(cat "$T/summary.md")"
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['kernel_fp32']['phases']['device']['gemm'] == 0.015" \
  "$T/summary.json" || fail "summary.json lacks the kernel's phases"
echo "gpu_summary: ok"
