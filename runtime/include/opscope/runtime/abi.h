/*===- abi.h - the contract between compiled models and the runtime -*- C -*-===*
 *
 * Part of opscope. The one header the compiler (convert-osc-to-runtime) and
 * the runtime share. A compiled model (`model.so`) defines the symbols of
 * the first group and calls only the functions of the second group, which
 * the runtime library (libopscope_runtime.so) provides.
 *
 * What a compiled model holds:
 *   - `opscope_abi_version`: OPSCOPE_ABI_VERSION at compile time; the runtime
 *     refuses any other value.
 *   - `opscope_model_plan`: a NUL-terminated JSON document (docs/runtime.md,
 *     "The model plan") describing inputs, outputs, the activation arena,
 *     the `.weights` file it expects (size and id) and every op to execute:
 *     its kind, attributes, operand and result buffers, and the probe table.
 *   - `opscope_model_run(ctx, profiling)`: executes the ops in order by
 *     calling `opscope_rt_exec(ctx, i)`; when `profiling` is non-zero it
 *     takes a second copy of the schedule in which every probe compiled in
 *     brackets its op with `opscope_rt_probe_begin/end(ctx, probe)`. Without
 *     profiling, a probed model therefore costs one branch per run.
 *     Control flow decided at run time (the plan's "controls": osc.if and
 *     osc.loop) is compiled into branches and loops around the calls, each
 *     step asking the runtime through `opscope_rt_control(ctx, c, step)`.
 *
 * Bump OPSCOPE_ABI_VERSION whenever anything here or in the plan schema
 * changes incompatibly.
 *
 *===----------------------------------------------------------------------===*/

#ifndef OPSCOPE_RUNTIME_ABI_H
#define OPSCOPE_RUNTIME_ABI_H

#include <stdint.h>

#define OPSCOPE_ABI_VERSION 3

/* Symbol names, for dlsym and for the compiler. */
#define OPSCOPE_SYM_ABI_VERSION "opscope_abi_version"
#define OPSCOPE_SYM_PLAN "opscope_model_plan"
#define OPSCOPE_SYM_RUN "opscope_model_run"
#define OPSCOPE_SYM_EXEC "opscope_rt_exec"
#define OPSCOPE_SYM_PROBE_BEGIN "opscope_rt_probe_begin"
#define OPSCOPE_SYM_PROBE_END "opscope_rt_probe_end"
#define OPSCOPE_SYM_CONTROL "opscope_rt_control"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque per-session execution state owned by the runtime. */
typedef struct opscope_rt_context opscope_rt_context;

/* --- Defined by a compiled model ------------------------------------------ */
typedef void (*opscope_model_run_fn)(opscope_rt_context *ctx,
                                     int32_t profiling);

/* --- Defined by the runtime, called by compiled code ---------------------- */
/* Runs op `op` (index into the plan's "ops") on the session's buffers. */
void opscope_rt_exec(opscope_rt_context *ctx, int32_t op);
/* Timestamps the start / end of probe `probe` (index into the probe table). */
void opscope_rt_probe_begin(opscope_rt_context *ctx, int32_t probe);
void opscope_rt_probe_end(opscope_rt_context *ctx, int32_t probe);

/* Steps of control op `control` (index into the plan's "controls"). */
enum {
  OPSCOPE_CONTROL_IF_COND = 0,     /* returns 1: run then, 0: run else */
  OPSCOPE_CONTROL_IF_THEN_END = 1, /* then's yields -> the If's results */
  OPSCOPE_CONTROL_IF_ELSE_END = 2, /* else's yields -> the If's results */
  OPSCOPE_CONTROL_LOOP_BEGIN = 3,  /* inits -> body arguments, iteration 0 */
  OPSCOPE_CONTROL_LOOP_TEST = 4,   /* returns 1: run the body once more */
  OPSCOPE_CONTROL_LOOP_NEXT = 5,   /* yields -> body arguments, iteration+1 */
  OPSCOPE_CONTROL_LOOP_END = 6     /* body arguments -> the Loop's results */
};
int32_t opscope_rt_control(opscope_rt_context *ctx, int32_t control,
                           int32_t step);

#ifdef __cplusplus
}
#endif

#endif /* OPSCOPE_RUNTIME_ABI_H */
