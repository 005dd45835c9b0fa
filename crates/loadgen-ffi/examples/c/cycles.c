/* Create, run and destroy a tiny plan COUNT times, then merge two of its
 * reports and run a step session: the memory checker's workload (every
 * string returned is freed; what stays allocated must not grow with COUNT).
 *
 *   ./cycles http://127.0.0.1:8080/ 1000
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen.h"

static int fail(const char *what) {
    char *error = loadgen_last_error();
    fprintf(stderr, "%s: %s\n", what, error ? error : "(no message)");
    loadgen_free_string(error);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s URL COUNT\n", argv[0]);
        return 2;
    }
    long count = atol(argv[2]);
    char config[4096];
    snprintf(config, sizeof config, "{\"uris\": [\"%s\"], \"mode\": {\"requests\": 1}}", argv[1]);

    char *last = NULL;
    for (long i = 0; i < count; i++) {
        LoadgenHandle handle = loadgen_create(config);
        if (handle == 0) {
            return fail("loadgen_create");
        }
        char *report = loadgen_run(handle);
        if (report == NULL) {
            return fail("loadgen_run");
        }
        char *snapshot = loadgen_metrics_snapshot(handle);
        loadgen_free_string(snapshot);
        if (loadgen_destroy(handle) != 0) {
            return fail("loadgen_destroy");
        }
        loadgen_free_string(last);
        last = report;
    }

    /* Errors on purpose: a destroyed handle, bad JSON. */
    if (loadgen_run(1) != NULL || loadgen_create("not json") != 0) {
        fprintf(stderr, "an error went unreported\n");
        return 1;
    }
    loadgen_free_string(loadgen_last_error());

    size_t length = strlen(last);
    char *pair = malloc(2 * length + 4);
    snprintf(pair, 2 * length + 4, "[%s,%s]", last, last);
    char *merged = loadgen_merge_reports(pair);
    free(pair);
    loadgen_free_string(last);
    if (merged == NULL) {
        return fail("loadgen_merge_reports");
    }
    loadgen_free_string(merged);

    char session_config[4096];
    snprintf(session_config, sizeof session_config, "{\"base_url\": \"%s\"}", argv[1]);
    LoadgenHandle session = loadgen_step_session_create(session_config);
    if (session == 0) {
        return fail("loadgen_step_session_create");
    }
    char *reply = loadgen_step_execute(session, "{\"url\": \"/app/login\"}");
    if (reply == NULL) {
        return fail("loadgen_step_execute");
    }
    loadgen_free_string(reply);
    loadgen_step_session_reset(session);
    loadgen_step_session_destroy(session);
    printf("%ld cycles\n", count);
    return 0;
}
