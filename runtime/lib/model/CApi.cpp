//===- CApi.cpp - the C API over model.h ----------------------------------===//
//
// Part of opscope's runtime. Exceptions stop here and become error codes.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/c_api.h"

#include "opscope/runtime/model.h"

#include <string>

struct opscope_model {
  std::unique_ptr<opscope::Model> model;
};
struct opscope_session {
  std::unique_ptr<opscope::Session> session;
  /// opscope_session_output_dims' answers, one per output.
  std::vector<opscope::rt::Shape> dims;
};

namespace {
thread_local std::string lastError;

template <typename F> auto guard(F &&f, decltype(f()) onError) {
  try {
    lastError.clear();
    return f();
  } catch (const std::exception &e) {
    lastError = e.what();
    return onError;
  }
}
} // namespace

extern "C" {
const char *opscope_last_error(void) { return lastError.c_str(); }

opscope_model *opscope_model_load(const char *soPath, const char *weightsPath) {
  return guard(
      [&] {
        return new opscope_model{opscope::Model::load(
            soPath, weightsPath ? weightsPath : "")};
      },
      static_cast<opscope_model *>(nullptr));
}

void opscope_model_free(opscope_model *m) { delete m; }

size_t opscope_model_num_inputs(const opscope_model *m) {
  return m->model->inputs().size();
}
size_t opscope_model_num_outputs(const opscope_model *m) {
  return m->model->outputs().size();
}
const char *opscope_model_input_name(const opscope_model *m, size_t i) {
  return m->model->inputs().at(i).name.c_str();
}
const char *opscope_model_output_name(const opscope_model *m, size_t i) {
  return m->model->outputs().at(i).name.c_str();
}
const char *opscope_model_input_dtype(const opscope_model *m, size_t i) {
  return opscope::rt::dtypeName(m->model->inputs().at(i).dtype);
}
const char *opscope_model_output_dtype(const opscope_model *m, size_t i) {
  return opscope::rt::dtypeName(m->model->outputs().at(i).dtype);
}
size_t opscope_model_input_rank(const opscope_model *m, size_t i) {
  return m->model->inputs().at(i).shape.size();
}
size_t opscope_model_output_rank(const opscope_model *m, size_t i) {
  return m->model->outputs().at(i).shape.size();
}
const int64_t *opscope_model_input_dims(const opscope_model *m, size_t i) {
  return m->model->inputs().at(i).shape.data();
}
const int64_t *opscope_model_output_dims(const opscope_model *m, size_t i) {
  return m->model->outputs().at(i).shape.data();
}

opscope_session *opscope_session_create(opscope_model *m) {
  return guard(
      [&] { return new opscope_session{m->model->createSession()}; },
      static_cast<opscope_session *>(nullptr));
}
void opscope_session_free(opscope_session *s) { delete s; }
void *opscope_session_input(opscope_session *s, size_t i) {
  return s->session->input(i);
}
const void *opscope_session_output(opscope_session *s, size_t i) {
  return s->session->output(i);
}
const int64_t *opscope_session_output_dims(opscope_session *s, size_t i) {
  s->dims.resize(s->session->model().outputs().size());
  s->dims.at(i) = s->session->outputShape(i);
  return s->dims[i].data();
}
int opscope_session_run(opscope_session *s) {
  return guard(
      [&] {
        s->session->run();
        return 0;
      },
      1);
}
}
