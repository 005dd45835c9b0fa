/**
 * loadgen from Deno, over the C ABI (libloadgen_ffi, docs/ffi.md): batch
 * runs that do not block the event loop, step sessions with cookies and
 * redirects, scenario runs, merges, a controller for `loadgen worker`s,
 * and a k6-like summary.
 *
 * ```ts
 * import { LoadgenFFI, printK6LikeSummary } from "./mod.ts";
 * const ffi = new LoadgenFFI();
 * const report = await ffi.runPlan({ uris: ["http://127.0.0.1:8080/"], clients: 4, mode: { requests: 1000 } });
 * printK6LikeSummary(report);
 * ```
 */

export { LoadgenFFI } from "./src/batch.ts";
export { LoadgenStepFFI, StepSession } from "./src/step.ts";
export { Controller } from "./src/controller.ts";
export type { ControllerOptions, WorkerAddress, WorkerResult } from "./src/controller.ts";
export { library, mergeReports, runScenario } from "./src/scenario.ts";
export { k6LikeSummary, printK6LikeSummary } from "./src/summary.ts";
export { findLibrary, libraryCandidates, LoadgenError } from "./src/library.ts";
export type * from "./src/types.ts";
