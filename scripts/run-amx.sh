#!/usr/bin/env bash
# run-amx.sh [--quick]: what AMX is worth to opscope on this CPU.
#
# Runs from the folder `make amx-bundle` writes, on any x86-64 Linux: it
# needs only bash, coreutils, grep, sed, awk and gzip, and loads every
# library from the bundle through the bundle's own glibc loader. It prints
# the CPU first and stops at once (exit 0) when the CPU has no AMX.
# On AMX it runs each measurement in alternating rounds against the same run
# with oneDNN capped below AMX (OPSCOPE_MAX_ISA=avx512_core_bf16 for bf16,
# avx512_core_vnni for int8):
#   1. which kernels ran: a profile of the bf16 and int8 builds (trace, CSV);
#   2. accuracy: the bf16 and int8 builds against fp32 (cosine);
#   3. BERT-mini latency: fp32, bf16, int8 and the 80% pruned int8, seq 128;
#   4. the dense inner-product shape table (opscope-tune), bf16 and int8;
#   5. the sparse-vs-dense table (bench-sparse --quick), bf16 and int8.
# Everything goes under $OUT (default ./amx-out): run-amx.log, summary.md,
# the traces and CSVs. Exit 1 when a check fails (AMX present but not
# used, a cosine below its bound, a tool failing), 2 on a bad argument.
# --quick: fewer rounds and iterations (the test in make test), < 1 min.
# RUN_AMX_CPU: the CPU to pin to (default 0, when taskset exists).
# RUN_AMX_CPUINFO: read the CPU's flags from this file (tests).
set -u -o pipefail
export PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
HERE=$(cd "$(dirname "$0")" && pwd)

QUICK=0
for a in "$@"; do
  case $a in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-amx.sh: error: unknown argument '$a' (usage: run-amx.sh [--quick])" >&2; exit 2 ;;
  esac
done
if [ "$QUICK" = 1 ]; then
  ROUNDS=2 ITER=5 WARMUP=1 SETS=2 TUNE_MS=20 TUNE_ROUNDS=1
  TUNE_SHAPES=256x1024,768x768 TUNE_M=128
else
  ROUNDS=5 ITER=30 WARMUP=3 SETS=8 TUNE_MS=100 TUNE_ROUNDS=3
  TUNE_SHAPES=256x256,1024x256,256x1024,768x768,3072x768,768x3072 TUNE_M=128,1024
fi

OUT=${OUT:-$PWD/amx-out}
mkdir -p "$OUT" || { echo "run-amx.sh: error: cannot create OUT=$OUT" >&2; exit 1; }
OUT=$(cd "$OUT" && pwd)
exec > >(tee "$OUT/run-amx.log") 2>&1

FAILED=0
section() { echo; echo "== $* [${SECONDS}s]"; }
fail() { echo "FAIL: $*"; FAILED=1; }

# -- The CPU, first.
CPUINFO=${RUN_AMX_CPUINFO:-/proc/cpuinfo}
field() { grep -m1 "^$1[[:space:]]*:" "$CPUINFO" | sed 's/^[^:]*:[[:space:]]*//'; }
CPU_MODEL=$(field 'model name')
FLAGS=" $(field flags) "
has() { case $FLAGS in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
echo "== CPU"
echo "model: $CPU_MODEL (family $(field 'cpu family'), model $(field model), stepping $(field stepping)); $(getconf _NPROCESSORS_ONLN) CPUs online"
line="flags:"
for f in avx2 fma avx512f avx512bw avx512vl avx512_vnni avx_vnni avx512_bf16 avx512_fp16 amx_tile amx_bf16 amx_int8; do
  if has "$f"; then line="$line $f"; else line="$line -$f"; fi
done
echo "$line"
echo "kernel: $(uname -sr); date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
[ -f "$HERE/MANIFEST" ] && sed 's/^/bundle: /' "$HERE/MANIFEST"

# -- The bundle's libraries, unpacked once, loaded by the bundle's loader.
LIBDIR=$(mktemp -d "${TMPDIR:-/tmp}/opscope-amx.XXXXXX") || exit 1
trap 'rm -rf "$LIBDIR"' EXIT
for f in "$HERE"/lib/*; do
  case $f in
    *.gz) gzip -dc "$f" > "$LIBDIR/$(basename "$f" .gz)" || { echo "run-amx.sh: error: cannot unpack $f (is gzip installed?)" >&2; exit 1; } ;;
    *) cp "$f" "$LIBDIR/" ;;
  esac
done
LOADER="$LIBDIR/ld-linux-x86-64.so.2"
chmod +x "$LOADER"
PIN=""
if command -v taskset > /dev/null 2>&1; then PIN="taskset -c ${RUN_AMX_CPU:-0}"; fi
tool() {  # TOOL ARGS...: a bundled tool, pinned, on the bundle's libraries
  local t=$1
  shift
  $PIN "$LOADER" --library-path "$LIBDIR" "$HERE/bin/$t" "$@"
}
# Nothing may come from the host but the kernel: every library a tool
# resolves must be one of the bundle's.
for t in "$HERE"/bin/*; do
  outside=$("$LOADER" --library-path "$LIBDIR" --list "$t" 2>&1 | awk -v d="$LIBDIR/" '$2 == "=>" && index($3, d) != 1 { print $1 " => " $3 }')
  [ -z "$outside" ] || { echo "run-amx.sh: error: $(basename "$t") resolves libraries outside the bundle:"; echo "$outside"; exit 1; }
done
echo "tools: $(tool opscope-run --version 2>&1 | tr '\n' ' ')"

missing=""
for f in amx_tile amx_bf16 amx_int8; do has "$f" || missing="$missing $f"; done
if [ -n "$missing" ]; then
  echo "run-amx.sh: no AMX on this CPU ($CPU_MODEL): its flags lack$missing; nothing to measure."
  exit 0
fi

M="$HERE/models"
NATIVE="env -u DNNL_MAX_CPU_ISA -u OPSCOPE_MAX_ISA"
capped_isa() { case $1 in *int8*) echo avx512_core_vnni ;; *) echo avx512_core_bf16 ;; esac; }
CAPPED() { echo "env -u DNNL_MAX_CPU_ISA OPSCOPE_MAX_ISA=$(capped_isa "$1")"; }

# -- 1. Which kernels ran.
section "1. Kernels: profiles of the bf16 and int8 builds (one thread)"
for p in bf16 int8; do
  base="$OUT/bert-mini-$p"
  if ! $NATIVE $PIN "$LOADER" --library-path "$LIBDIR" "$HERE/bin/opscope-run" "$M/bert-mini-$p.so" \
      --threads 1 --iterations "$ITER" --warmup "$WARMUP" --profile \
      --trace "$base-trace.json" --csv "$base-profile.csv" > "$base-profile.txt" 2>&1; then
    cat "$base-profile.txt"
    fail "$p: opscope-run --profile failed"
    continue
  fi
  echo "$p: kernels of the inner products and matmuls (CSV 'kernel' column, count of ops):"
  grep -oE '(brg|brgemm|gemm|jit|ref|x64)[a-z0-9_]*:[a-z0-9_]+(:[a-z0-9_]+)?' "$base-profile.csv" | sort | uniq -c | sed 's/^/  /'
  in_csv=$(grep -c 'avx512_core_amx' "$base-profile.csv")
  in_trace=$(grep -o 'avx512_core_amx' "$base-trace.json" | wc -l)
  echo "  AMX kernels: $in_csv CSV rows, $in_trace mentions in the trace (probe table and events)"
  [ "$in_csv" -gt 0 ] && [ "$in_trace" -gt 0 ] ||
    fail "$p: the CPU lists AMX but no op ran an avx512_core_amx kernel (a kernel before Linux 5.16 refuses AMX's tile state)"
done

# -- 2. Accuracy against the fp32 build.
section "2. Accuracy against the fp32 build ($SETS random input sets, ids < 1000)"
for spec in bf16:0.999 int8:0.999; do
  p=${spec%%:*} min=${spec##*:}
  ref=bert-mini-fp32
  if tool opscope-run "$M/bert-mini-$p.so" --compare-to "$M/$ref.so" --random "$SETS" \
      --int-max 1000 --min-cosine "$min" > "$OUT/accuracy-$p.txt" 2>&1; then
    echo "$p against $ref: $(awk '/^last_hidden_state/ { print "cosine min " $4 ", mean " $5 ", max abs " $2 }' "$OUT/accuracy-$p.txt") (bound $min)"
  else
    cat "$OUT/accuracy-$p.txt"
    fail "$p: cosine against $ref below $min (or the run failed)"
  fi
done

median_of() { awk '/^latency ms:/ { for (i = 1; i <= NF; i++) if ($i == "median") print $(i + 1) }' "$1"; }
# Median of a list of numbers (one per line).
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# -- 3. BERT-mini latency, AMX against capped, alternating.
section "3. BERT-mini, seq 128, batch 1, one thread: $ROUNDS rounds alternating AMX and capped runs of $ITER iterations"
LAT="$OUT/latency.tsv"
printf 'round\tbuild\tisa\tmedian_ms\n' > "$LAT"
BUILDS="fp32 bf16 int8 sparse80-int8"
for r in $(seq 1 "$ROUNDS"); do
  for b in $BUILDS; do
    for which in native capped; do
      if [ $which = native ]; then envs=$NATIVE isa=native; else envs=$(CAPPED "$b") isa=$(capped_isa "$b"); fi
      # fp32 is not an AMX type: one run of it per round is its baseline.
      [ "$b" = fp32 ] && [ $which = capped ] && continue
      log="$OUT/latency-$b-$isa-r$r.txt"
      if $envs $PIN "$LOADER" --library-path "$LIBDIR" "$HERE/bin/opscope-run" "$M/bert-mini-$b.so" \
          --threads 1 --iterations "$ITER" --warmup "$WARMUP" > "$log" 2>&1; then
        printf '%s\t%s\t%s\t%s\n' "$r" "$b" "$isa" "$(median_of "$log")" >> "$LAT"
      else
        cat "$log"
        fail "$b ($isa): opscope-run failed"
      fi
    done
  done
done
SUMMARY="$OUT/summary.md"
{
  echo "# AMX run: $CPU_MODEL"
  echo
  echo "$(date -u +%Y-%m-%d), $(uname -sr), one thread pinned (${PIN:-not pinned: no taskset})."
  echo
  echo "## BERT-mini latency (seq 128, batch 1), median of per-round medians over $ROUNDS rounds"
  echo
  echo "| build | AMX ms | capped ms (ISA) | capped / AMX [per-round range] | vs fp32 |"
  echo "| --- | --- | --- | --- | --- |"
} > "$SUMMARY"
fp32_ms=$(awk -F'\t' '$2 == "fp32" { print $4 }' "$LAT" | median)
for b in $BUILDS; do
  amx=$(awk -F'\t' -v b="$b" '$2 == b && $3 == "native" { print $4 }' "$LAT" | median)
  if [ "$b" = fp32 ]; then
    capped="-" ratio="-"
  else
    isa=$(capped_isa "$b")
    capped="$(awk -F'\t' -v b="$b" '$2 == b && $3 != "native" { print $4 }' "$LAT" | median) ($isa)"
    ratios=$(awk -F'\t' -v b="$b" '$2 == b && $3 == "native" { n[$1] = $4 } $2 == b && $3 != "native" { c[$1] = $4 } END { for (r in n) if (r in c) print c[r] / n[r] }' "$LAT")
    ratio="$(echo "$ratios" | median | awk '{ printf "%.2fx", $1 }') [$(echo "$ratios" | sort -g | sed -n '1p;$p' | awk '{ printf "%s%.2f", (NR > 1 ? "-" : ""), $1 }')]"
  fi
  vs=$(awk -v a="$amx" -v f="$fp32_ms" 'BEGIN { printf "%.2fx", a / f }')
  echo "| $b | $amx | $capped | $ratio | $vs |" >> "$SUMMARY"
done
sed -n '/^| build/,$p' "$SUMMARY"

# -- 4. Dense inner-product shapes: oneDNN on AMX against oneDNN capped.
section "4. Dense inner products (opscope-tune --no-save), AMX and capped runs alternating"
for r in $(seq 1 "$ROUNDS"); do
  [ "$QUICK" = 1 ] && [ "$r" -gt 1 ] && break
  for p in bf16 int8; do
    for which in native capped; do
      if [ $which = native ]; then envs=$NATIVE tag=amx; else envs=$(CAPPED "$p") tag=$(capped_isa "$p"); fi
      $envs $PIN "$LOADER" --library-path "$LIBDIR" "$HERE/bin/opscope-tune" --shape "$TUNE_SHAPES" \
        --m "$TUNE_M" --precision "$p" --sparsity 0.8 --rounds "$TUNE_ROUNDS" --min-ms "$TUNE_MS" \
        --no-save > "$OUT/tune-$p-$tag-r$r.txt" 2>&1 || fail "opscope-tune $p ($tag) failed"
    done
  done
done
{
  echo
  echo "## Dense inner products (oneDNN), ms and TOP/s, median over rounds"
  echo
  echo "| shape NxK | M | precision | AMX ms | capped ms | AMX TOP/s | capped TOP/s | AMX speed-up | sparse 80% speed-up over AMX dense |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
} >> "$SUMMARY"
for p in bf16 int8; do
  # The first table of each run: | shape | M | precision | dense ms | ratio |
  for f in "$OUT"/tune-$p-*-r*.txt; do
    tag=$(basename "$f" | sed 's/^tune-[a-z0-9]*-//; s/-r[0-9]*\.txt$//')
    awk -v tag="$tag" -F'|' '/^\| [0-9]+x[0-9]+ / && !seen[$2 $3]++ { gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $4); gsub(/ /, "", $5); r = $6; sub(/^ */, "", r); sub(/x.*/, "", r); print $2, $3, $4, tag, $5, r }' "$f"
  done > "$OUT/tune-$p.rows"
  for key in $(awk '{ print $1 ":" $2 }' "$OUT/tune-$p.rows" | sort -u -t: -k2,2n -k1,1); do
    s=${key%%:*} m=${key##*:}
    a=$(awk -v s="$s" -v m="$m" '$1 == s && $2 == m && $4 == "amx" { print $5 }' "$OUT/tune-$p.rows" | median)
    c=$(awk -v s="$s" -v m="$m" '$1 == s && $2 == m && $4 != "amx" { print $5 }' "$OUT/tune-$p.rows" | median)
    sr=$(awk -v s="$s" -v m="$m" '$1 == s && $2 == m && $4 == "amx" { print $6 }' "$OUT/tune-$p.rows" | median)
    awk -v s="$s" -v m="$m" -v p="$p" -v a="$a" -v c="$c" -v sr="$sr" 'BEGIN {
      split(s, d, "x"); ops = 2 * d[1] * d[2] * m
      printf "| %s | %s | %s | %.4f | %.4f | %.2f | %.2f | %.2fx | %.2fx |\n", s, m, p, a, c, ops / a / 1e9, ops / c / 1e9, c / a, sr }' >> "$SUMMARY"
  done
done
sed -n '/^## Dense/,$p' "$SUMMARY" | tail -n +3

# -- 5. The sparse kernels against oneDNN dense, on AMX and capped.
section "5. Sparse against dense inner products (bench-sparse --quick)"
for p in bf16 int8; do
  for which in native capped; do
    if [ $which = native ]; then envs=$NATIVE tag=amx; else envs=$(CAPPED "$p") tag=$(capped_isa "$p"); fi
    echo "-- $p, oneDNN dense $tag"
    $envs $PIN "$LOADER" --library-path "$LIBDIR" "$HERE/bin/bench-sparse" --quick --precision "$p" \
      > "$OUT/sparse-$p-$tag.txt" 2>&1 || fail "bench-sparse $p ($tag) failed"
    cat "$OUT/sparse-$p-$tag.txt"
  done
done
{
  echo
  echo "## Sparse against dense (bench-sparse --quick): sparse-*.txt"
  echo
  echo "## Kernels (profiles): bert-mini-{bf16,int8}-profile.csv, -trace.json"
} >> "$SUMMARY"

echo
if [ "$FAILED" = 0 ]; then
  echo "run-amx.sh: done in ${SECONDS}s; every check passed; figures in $SUMMARY"
else
  echo "run-amx.sh: done in ${SECONDS}s, with failures (FAIL lines above); figures in $SUMMARY"
fi
exit "$FAILED"
