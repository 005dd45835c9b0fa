/* A benchmark through the C ABI: runs N requests with C clients against
 * URL and prints the report (the JSON `loadgen -o FILE.json` writes).
 *
 *   cc simple.c -I../../include -L$TARGET/debug -lloadgen_ffi -o simple
 *   ./simple http://127.0.0.1:8080/ 1000 4 > report.json
 */
#include <stdio.h>
#include <stdlib.h>

#include "loadgen.h"

/* Prints the last error of this thread, and frees it. */
static int fail(const char *what) {
    char *error = loadgen_last_error();
    fprintf(stderr, "%s: %s\n", what, error ? error : "(no message)");
    loadgen_free_string(error);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s URL [REQUESTS] [CLIENTS]\n", argv[0]);
        return 2;
    }
    const char *url = argv[1];
    long requests = argc > 2 ? atol(argv[2]) : 1000;
    long clients = argc > 3 ? atol(argv[3]) : 4;

    char *version = loadgen_version();
    fprintf(stderr, "loadgen %s\n", version);
    loadgen_free_string(version);

    /* The plan: a PlanInput as JSON, as `loadgen -n N -c C URL` makes it. */
    char config[4096];
    snprintf(config, sizeof config,
             "{\"uris\": [\"%s\"], \"clients\": %ld, \"mode\": {\"requests\": %ld}}",
             url, clients, requests);
    LoadgenHandle handle = loadgen_create(config);
    if (handle == 0) {
        return fail("loadgen_create");
    }
    char *report = loadgen_run(handle); /* blocks until the run ends */
    if (report == NULL) {
        loadgen_destroy(handle);
        return fail("loadgen_run");
    }
    fputs(report, stdout);
    loadgen_free_string(report);
    loadgen_destroy(handle);
    return 0;
}
