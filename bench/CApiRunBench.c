/* bench-capi-run: how long one run of a compiled model takes through the
 * runtime's C API (c_api.h), the baseline scripts/bench_python.py holds the
 * Python API's Session.run against. Each run copies its inputs (zeros) into
 * the session, as a caller feeding new data does; outputs are read in place.
 *
 *   bench-capi-run MODEL.so [RUNS [ROUNDS]]
 *
 * Prints each round's mean time per run in microseconds, one per line
 * (defaults: 2000 runs, 5 rounds, after 100 untimed runs).
 */
#include "opscope/runtime/c_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double nowUs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4 || argv[1][0] == '-') {
    fprintf(stderr, "usage: %s MODEL.so [RUNS [ROUNDS]]\n", argv[0]);
    return 2;
  }
  long runs = argc > 2 ? strtol(argv[2], NULL, 10) : 2000;
  long rounds = argc > 3 ? strtol(argv[3], NULL, 10) : 5;
  if (runs <= 0 || rounds <= 0) {
    fprintf(stderr, "%s: RUNS and ROUNDS must be positive\n", argv[0]);
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
    return 1;
  }
  size_t n = opscope_model_num_inputs(m);
  void **feeds = calloc(n ? n : 1, sizeof(void *));
  size_t *bytes = calloc(n ? n : 1, sizeof(size_t));
  for (size_t i = 0; i < n; ++i) {
    const char *dtype = opscope_model_input_dtype(m, i);
    size_t elem = strcmp(dtype, "f64") == 0 || strcmp(dtype, "i64") == 0   ? 8
                  : strcmp(dtype, "f32") == 0 || strcmp(dtype, "i32") == 0 ? 4
                  : strcmp(dtype, "f16") == 0 || strcmp(dtype, "bf16") == 0 ||
                          strcmp(dtype, "i16") == 0
                      ? 2
                      : 1;
    bytes[i] = elem;
    for (size_t d = 0; d < opscope_model_input_rank(m, i); ++d)
      bytes[i] *= (size_t)opscope_model_input_dims(m, i)[d];
    feeds[i] = calloc(bytes[i] ? bytes[i] : 1, 1);
  }
  for (long i = 0; i < 100; ++i)
    if (opscope_session_run(s)) {
      fprintf(stderr, "error: %s\n", opscope_last_error());
      return 1;
    }
  for (long r = 0; r < rounds; ++r) {
    double t0 = nowUs();
    for (long i = 0; i < runs; ++i) {
      for (size_t k = 0; k < n; ++k)
        memcpy(opscope_session_input(s, k), feeds[k], bytes[k]);
      opscope_session_run(s);
    }
    printf("%.3f\n", (nowUs() - t0) / runs);
  }
  opscope_session_free(s);
  opscope_model_free(m);
  return 0;
}
