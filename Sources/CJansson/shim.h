#ifndef MODELSTORE_CJANSSON_SHIM_H
#define MODELSTORE_CJANSSON_SHIM_H
// The jansson API that Swift cannot import directly: function-like macros
// become static inline functions here. Nothing else lives on the C side.
#include <jansson.h>

/// json_typeof(v)
static inline json_type cj_typeof(const json_t *v) { return json_typeof(v); }
/// json_boolean_value / json_is_true(v)
static inline int cj_is_true(const json_t *v) { return json_is_true(v); }
/// json_decref(v): an inline function in jansson.h, wrapped so Swift calls one symbol.
static inline void cj_decref(json_t *v) { json_decref(v); }
/// json_incref(v)
static inline json_t *cj_incref(json_t *v) { return json_incref(v); }
/// json_error_t.text, which Swift imports as a 160-element tuple.
static inline const char *cj_error_text(const json_error_t *e) { return e->text; }
/// json_error_code(e) (jansson >= 2.11).
static inline int cj_error_code(const json_error_t *e) { return (int)json_error_code(e); }

#endif
