/*===- c_api.h - load and run a compiled model from C ----------*- C -*-===*
 *
 * Part of opscope's runtime. A C view of model.h for programs that are not
 * C++. Functions returning int return 0 on success and non-zero on error;
 * opscope_last_error() then describes it (thread-local).
 *
 *   opscope_model *m = opscope_model_load("bert.so", NULL);
 *   opscope_session *s = opscope_session_create(m);
 *   memcpy(opscope_session_input(s, 0), ids, bytes);
 *   if (opscope_session_run(s)) fprintf(stderr, "%s\n", opscope_last_error());
 *
 *===----------------------------------------------------------------------===*/

#ifndef OPSCOPE_RUNTIME_C_API_H
#define OPSCOPE_RUNTIME_C_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct opscope_model opscope_model;
typedef struct opscope_session opscope_session;

const char *opscope_last_error(void);

/* weights_path may be NULL (the .so path with .weights). NULL on error. */
opscope_model *opscope_model_load(const char *so_path, const char *weights_path);
void opscope_model_free(opscope_model *m);
size_t opscope_model_num_inputs(const opscope_model *m);
size_t opscope_model_num_outputs(const opscope_model *m);
/* Name, element type name ("f32", "i64", ...), rank and dims of a tensor. */
const char *opscope_model_input_name(const opscope_model *m, size_t i);
const char *opscope_model_output_name(const opscope_model *m, size_t i);
const char *opscope_model_input_dtype(const opscope_model *m, size_t i);
const char *opscope_model_output_dtype(const opscope_model *m, size_t i);
size_t opscope_model_input_rank(const opscope_model *m, size_t i);
size_t opscope_model_output_rank(const opscope_model *m, size_t i);
const int64_t *opscope_model_input_dims(const opscope_model *m, size_t i);
const int64_t *opscope_model_output_dims(const opscope_model *m, size_t i);

opscope_session *opscope_session_create(opscope_model *m);
void opscope_session_free(opscope_session *s);
void *opscope_session_input(opscope_session *s, size_t i);
const void *opscope_session_output(opscope_session *s, size_t i);
/* The dims (output rank of them) of output i after the last run: the
 * model's dims, except for an output whose size depends on the values
 * (NonZero, Compress, Unique, NonMaxSuppression, TopK with a run-time k:
 * docs/architecture.md), where one dim is what the run produced and
 * opscope_session_output holds exactly that many elements. Valid until the
 * next call for the same output. */
const int64_t *opscope_session_output_dims(opscope_session *s, size_t i);
int opscope_session_run(opscope_session *s);

#ifdef __cplusplus
}
#endif

#endif /* OPSCOPE_RUNTIME_C_API_H */
