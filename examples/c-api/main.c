/* opscope-capi-example: load a compiled model through the C API, fill every
 * input with a constant (1 for integers, 0.5 for floats, true and false
 * alternating for booleans), run it and print each output's name, shape
 * after the run (opscope_session_output_dims: a data-dependent output such
 * as Compress's has fewer rows than its bound) and first values.
 *
 *   opscope-capi-example MODEL.so
 */
#include "opscope/runtime/c_api.h"

#include <stdio.h>
#include <string.h>

static size_t elements(const int64_t *dims, size_t rank) {
  size_t n = 1;
  for (size_t i = 0; i < rank; ++i)
    n *= (size_t)dims[i];
  return n;
}

int main(int argc, char **argv) {
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: %s MODEL.so\nLoads a compiled model, fills every input "
           "with a constant (1 for integers, 0.5 for floats, true and false "
           "alternating for booleans), runs it once and prints each "
           "output's name, shape after the run and first values.\n",
           argv[0]);
    return 0;
  }
  if (argc != 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: %s MODEL.so\n", argv[0]);
    return 2;
  }
  opscope_model *m = opscope_model_load(argv[1], NULL);
  if (!m) {
    fprintf(stderr, "error: %s\n", opscope_last_error());
    return 1;
  }
  opscope_session *s = opscope_session_create(m);
  if (!s) {
    fprintf(stderr, "error: %s\n", opscope_last_error());
    opscope_model_free(m);
    return 1;
  }
  for (size_t i = 0; i < opscope_model_num_inputs(m); ++i) {
    const char *dtype = opscope_model_input_dtype(m, i);
    size_t n = elements(opscope_model_input_dims(m, i), opscope_model_input_rank(m, i));
    void *buf = opscope_session_input(s, i);
    for (size_t k = 0; k < n; ++k) {
      if (!strcmp(dtype, "f32"))
        ((float *)buf)[k] = 0.5f;
      else if (!strcmp(dtype, "i64"))
        ((int64_t *)buf)[k] = 1;
      else if (!strcmp(dtype, "i32"))
        ((int32_t *)buf)[k] = 1;
      else if (!strcmp(dtype, "i1"))
        ((unsigned char *)buf)[k] = k % 2 == 0;
    }
  }
  if (opscope_session_run(s)) {
    fprintf(stderr, "error: %s\n", opscope_last_error());
    return 1;
  }
  for (size_t o = 0; o < opscope_model_num_outputs(m); ++o) {
    size_t rank = opscope_model_output_rank(m, o);
    const int64_t *dims = opscope_session_output_dims(s, o);
    printf("%s %s [", opscope_model_output_name(m, o), opscope_model_output_dtype(m, o));
    for (size_t d = 0; d < rank; ++d)
      printf("%s%lld", d ? "x" : "", (long long)dims[d]);
    printf("]");
    if (!strcmp(opscope_model_output_dtype(m, o), "f32")) {
      const float *y = (const float *)opscope_session_output(s, o);
      size_t n = elements(dims, rank);
      for (size_t k = 0; k < n && k < 4; ++k)
        printf(" %.6f", y[k]);
    }
    printf("\n");
  }
  opscope_session_free(s);
  opscope_model_free(m);
  return 0;
}
