// osc-sparse-layout{tuning-db=FILE}: in mode=auto the measured latencies
// decide (docs/tuning.md). The input is osc-sparse-layout.mlir's FFN: %w1
// and %w2 are 8x8 at 0.8125 block sparsity, %w3 dense, M = 4 tokens.
// The databases are synthetic, with this machine's key taken from one that
// opscope-tune writes here.
// RUN: rm -rf %t && mkdir -p %t
// RUN: opscope-tune --shape 8x8 --m 4 --sparsity 0.8 --rounds 1 --min-ms 1 --db %t/real.json > /dev/null

// Sparse measured faster at 0.8: %w1 and %w2 (0.8125, within half a block
// of 0.8: an 8x8 weight has 16 blocks) go sparse, measured there; %w3 has
// no zero blocks, below the lowest measured ratio where sparse won, so the
// threshold keeps it dense and its choice says why. Every op has an entry,
// so the pass prints no note.
// RUN: %python %S/Inputs/make_tuning_db.py %t/real.json %t/fast.json 1.0 0.25
// RUN: opscope-opt %S/osc-sparse-layout.mlir -pass-pipeline='builtin.module(func.func(osc-sparse-layout{tuning-db=%t/fast.json}))' 2>%t/fast.err | FileCheck %s --check-prefix=FAST
// RUN: count 0 < %t/fast.err
// FAST: osc.sparse_inner_product {{.*}}osc.kernel_choice = "tuned: sparse 0.250 ms < dense 1.000 ms (measured at 80%; entry 8x8 M=4 fp32 1x4, 1 thread)"
// FAST: osc.sparse_inner_product {{.*}}osc.kernel_choice = "tuned: sparse 0.250 ms < dense 1.000 ms (measured at 80%; entry 8x8 M=4 fp32 1x4, 1 thread)"
// FAST: osc.inner_product {{.*}}osc.kernel_choice = "threshold 0.7 (0% is outside the measured 80%, where sparse won; entry 8x8 M=4 fp32 1x4, 1 thread)"

// Sparse measured slower: everything stays dense, although the threshold
// (0.7) would have made two ops sparse; %w3, less sparse than where dense
// won, is bounded by that point.
// RUN: %python %S/Inputs/make_tuning_db.py %t/real.json %t/slow.json 1.0 2.0
// RUN: opscope-opt %S/osc-sparse-layout.mlir -pass-pipeline='builtin.module(func.func(osc-sparse-layout{tuning-db=%t/slow.json}))' | FileCheck %s --check-prefix=SLOW
// SLOW-NOT: sparse_inner_product
// SLOW: osc.inner_product {{.*}}osc.kernel_choice = "tuned: dense 1.000 ms <= sparse 2.000 ms (measured at 80%; entry 8x8 M=4 fp32 1x4, 1 thread)"
// SLOW: osc.inner_product {{.*}}osc.kernel_choice = "tuned: dense 1.000 ms <= sparse 2.000 ms (measured at 80%; entry 8x8 M=4 fp32 1x4, 1 thread)"
// SLOW: osc.inner_product {{.*}}osc.kernel_choice = "tuned: dense 1.000 ms <= sparse 2.000 ms (at 80%, the lowest measured: 0% is only slower; entry 8x8 M=4 fp32 1x4, 1 thread)"

// Dense ops take the faster of oneDNN's dense primitives where both were
// measured (fp32): the matmul primitive at 0.5 ms against the inner
// product's 1.0 ms runs %w3 (and, sparse being slower, all three).
// RUN: %python %S/Inputs/make_tuning_db.py %t/real.json %t/mm.json 1.0 2.0 --matmul 0.5
// RUN: opscope-opt %S/osc-sparse-layout.mlir -pass-pipeline='builtin.module(func.func(osc-sparse-layout{tuning-db=%t/mm.json}))' | FileCheck %s --check-prefix=MATMUL
// MATMUL-COUNT-2: osc.inner_product {{.*}}dense_kernel = "matmul", osc.kernel_choice = "tuned: dense 1.000 ms <= sparse 2.000 ms (measured at 80%; entry 8x8 M=4 fp32 1x4, 1 thread); dense on oneDNN's matmul 0.500 ms < inner product 1.000 ms"
// MATMUL: osc.inner_product {{.*}}dense_kernel = "matmul", osc.kernel_choice = "tuned: dense 1.000 ms <= sparse 2.000 ms (at 80%, the lowest measured: 0% is only slower; entry 8x8 M=4 fp32 1x4, 1 thread); dense on oneDNN's matmul 0.500 ms < inner product 1.000 ms"
// A slower matmul records nothing: the runtime's tier default decides
// (docs/tuning.md).
// RUN: %python %S/Inputs/make_tuning_db.py %t/real.json %t/mmslow.json 1.0 2.0 --matmul 1.5
// RUN: opscope-opt %S/osc-sparse-layout.mlir -pass-pipeline='builtin.module(func.func(osc-sparse-layout{tuning-db=%t/mmslow.json}))' | FileCheck %s --check-prefix=MMSLOW
// MMSLOW-NOT: dense_kernel
// So does a matmul within 3% of the inner product (0.98 against 1.0 ms): a
// tie at the timing's noise, where the tier's default is the better guess.
// RUN: %python %S/Inputs/make_tuning_db.py %t/real.json %t/mmtie.json 1.0 2.0 --matmul 0.98
// RUN: opscope-opt %S/osc-sparse-layout.mlir -pass-pipeline='builtin.module(func.func(osc-sparse-layout{tuning-db=%t/mmtie.json}))' | FileCheck %s --check-prefix=MMSLOW

// An entry of another M (8, the model's is 4) and thread count (2) is the
// nearest: it decides, and the choice and a note say so.
// RUN: %python %S/Inputs/make_tuning_db.py %t/real.json %t/m8.json 1.0 0.25 --m 8 --threads 2
// RUN: opscope-opt %S/osc-sparse-layout.mlir -pass-pipeline='builtin.module(func.func(osc-sparse-layout{tuning-db=%t/m8.json}))' 2>%t/m8.err | FileCheck %s --check-prefix=NEAREST
// RUN: FileCheck %s --check-prefix=NEAREST-NOTE < %t/m8.err
// NEAREST-COUNT-2: osc.sparse_inner_product {{.*}}osc.kernel_choice = "tuned: sparse 0.250 ms < dense 1.000 ms (measured at 80%; entry 8x8 M=8 fp32 1x4, 2 threads); 1 thread not measured: the nearest, 2 (measured 2); M 4 not measured: the nearest, M 8 (measured 8)"
// NEAREST-NOTE: osc-sparse-layout: 2 of 3 inner products decided by the nearest tuning database entry (another M or thread count; --print-fusion's choice column names it)

// Measured only at 90%, where sparse won: %w1 and %w2 (0.8125) lie below
// it, where nothing bounds the answer; the threshold makes them sparse,
// and the pass says so.
// RUN: %python %S/Inputs/make_tuning_db.py %t/real.json %t/at90.json 1.0 0.25 --sparsity 0.9
// RUN: opscope-opt %S/osc-sparse-layout.mlir -pass-pipeline='builtin.module(func.func(osc-sparse-layout{tuning-db=%t/at90.json}))' 2>%t/at90.err | FileCheck %s --check-prefix=AT90
// RUN: FileCheck %s --check-prefix=AT90-NOTE < %t/at90.err
// AT90-COUNT-2: osc.sparse_inner_product {{.*}}osc.kernel_choice = "threshold 0.7 (81.25% is outside the measured 90%, where sparse won; entry 8x8 M=4 fp32 1x4, 1 thread)"
// AT90-NOTE: osc-sparse-layout: 2 of 3 inner products made sparse by the threshold 0.7: their block sparsity lies outside the ratios their tuning database entry measured

// No entry: the threshold decides, and the pass says so once.
// RUN: %python %S/Inputs/make_tuning_db.py %t/real.json %t/empty.json 0 0 --empty
// RUN: opscope-opt %S/osc-sparse-layout.mlir -pass-pipeline='builtin.module(func.func(osc-sparse-layout{tuning-db=%t/empty.json}))' 2>%t/empty.err | FileCheck %s --check-prefix=EMPTY
// RUN: FileCheck %s --check-prefix=FALLBACK < %t/empty.err
// EMPTY-COUNT-2: osc.sparse_inner_product {{.*}}osc.kernel_choice = "threshold 0.7 (no entry for 8x8 fp32 at any M or thread count)"
// EMPTY: osc.inner_product {{.*}}osc.kernel_choice = "threshold 0.7 (no entry for 8x8 fp32 at any M or thread count)"
// FALLBACK: osc-sparse-layout: 3 of 3 inner products have no tuning database entry (weight shape, precision, at any M or thread count): the threshold 0.7 decided for them
// FALLBACK-NOT: osc-sparse-layout

// Another machine's database, or a corrupt one, is an error naming it.
// RUN: %python %S/Inputs/make_tuning_db.py %t/real.json %t/foreign.json 1.0 0.25 --cpu "Other CPU"
// RUN: not opscope-opt %S/osc-sparse-layout.mlir -pass-pipeline='builtin.module(func.func(osc-sparse-layout{tuning-db=%t/foreign.json}))' 2>&1 | FileCheck %s --check-prefix=FOREIGN
// FOREIGN: error: osc-sparse-layout: {{.*}}foreign.json: tuning database of another machine: measured on Other CPU ({{.*}}), this is {{.*}}; refusing to use it (re-run opscope-tune here)
// RUN: echo '{"schema": "opscope-tuning"' > %t/corrupt.json
// RUN: not opscope-opt %S/osc-sparse-layout.mlir -pass-pipeline='builtin.module(func.func(osc-sparse-layout{tuning-db=%t/corrupt.json}))' 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: error: osc-sparse-layout: {{.*}}corrupt.json: not a usable tuning database: not a JSON object

// opscope-compile reads this machine's database from
// $OPSCOPE_CACHE_DIR/tuning (--kernels tuned, the default when it exists);
// --print-fusion shows the choice and the latencies behind it.
// --kernels rules ignores it.
// RUN: env OPSCOPE_CACHE_DIR=%t/cache opscope-tune --shape 8x8 --m 4 --sparsity 0.8 --rounds 1 --min-ms 1 > /dev/null
// RUN: sh -c 'for f in %t/cache/tuning/*.json; do %python %S/Inputs/make_tuning_db.py $f $f 1.0 2.0; done'
// RUN: env OPSCOPE_CACHE_DIR=%t/cache opscope-compile %S/osc-sparse-layout.mlir -o %t/ffn.so --print-fusion | FileCheck %s --check-prefix=COMPILE
// COMPILE: osc-sparse-layout: 0 of 3 inner products sparse (mode auto with tuning database, threshold 0.7 without an entry)
// COMPILE: kernel choice sources
// COMPILE-NEXT: inner_product {{.*}} onednn:inner_product tuned: dense 1.000 ms <= sparse 2.000 ms (measured at 80%; entry 8x8 M=4 fp32 1x4, 1 thread)
// RUN: env OPSCOPE_CACHE_DIR=%t/cache %at_vector_tier opscope-compile %S/osc-sparse-layout.mlir -o %t/ffn.so --print-fusion --kernels rules | FileCheck %s --check-prefix=RULES
// RULES: osc-sparse-layout: 2 of 3 inner products sparse (mode auto, threshold 0.7)
// RULES-NOT: choice
// No database: --kernels tuned says so, the rules decide.
// RUN: env OPSCOPE_CACHE_DIR=%t/none opscope-compile %S/osc-sparse-layout.mlir -o %t/ffn.so --kernels tuned 2>&1 | FileCheck %s --check-prefix=NODB
// NODB: opscope-compile: no tuning database for this machine ({{.*}}none/tuning/{{.*}}.json; run opscope-tune): the rules decide
// RUN: sh -c 'opscope-compile %S/osc-sparse-layout.mlir -o %t/ffn.so --kernels fastest; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=BADK
// BADK: --kernels: fastest not in {tuned,rules}
// BADK: exit 2
