/** `LoadgenFFI`: batch runs, merges and scenario runs through the library. */

import { cString, lastError, type Library, LoadgenError, open, take, takeOrThrow } from "./library.ts";
import type { PlanInput, Report, Snapshot } from "./types.ts";

export class LoadgenFFI {
  readonly lib: Library;

  /** Opens the library at `path`, else the first found where `libraryCandidates()` looks. */
  constructor(path?: string) {
    this.lib = open(path);
  }

  version(): string {
    return takeOrThrow(this.lib, this.lib.symbols.loadgen_version(), "loadgen_version");
  }

  /** A handle for `plan`; throws when the plan is invalid (the error names the field). */
  create(plan: PlanInput | string): bigint {
    const text = typeof plan === "string" ? plan : JSON.stringify(plan);
    const handle = BigInt(this.lib.symbols.loadgen_create(cString(text)));
    if (handle === 0n) throw lastError(this.lib, "loadgen_create");
    return handle;
  }

  /** Runs the handle's plan on a thread of its own: the event loop goes on. */
  async run(handle: bigint): Promise<Report> {
    const pointer = await this.lib.symbols.loadgen_run(handle);
    const text = take(this.lib, pointer);
    if (text === null) {
      // The run came back on another thread, whose last error is not ours: the handle keeps it.
      throw new LoadgenError(this.snapshot(handle).error ?? "loadgen_run failed");
    }
    return JSON.parse(text) as Report;
  }

  snapshot(handle: bigint): Snapshot {
    const text = takeOrThrow(this.lib, this.lib.symbols.loadgen_metrics_snapshot(handle), "loadgen_metrics_snapshot");
    return JSON.parse(text) as Snapshot;
  }

  cancel(handle: bigint): void {
    if (this.lib.symbols.loadgen_cancel(handle) !== 0) throw lastError(this.lib, "loadgen_cancel");
  }

  destroy(handle: bigint): void {
    if (this.lib.symbols.loadgen_destroy(handle) !== 0) throw lastError(this.lib, "loadgen_destroy");
  }

  /** create, run, destroy. */
  async runPlan(plan: PlanInput | string): Promise<Report> {
    const handle = this.create(plan);
    try {
      return await this.run(handle);
    } finally {
      this.destroy(handle);
    }
  }

  /** Reports (with their histograms) added up as `loadgen merge` does. */
  merge(reports: Report[]): Report {
    const text = takeOrThrow(
      this.lib,
      this.lib.symbols.loadgen_merge_reports(cString(JSON.stringify(reports))),
      "loadgen_merge_reports",
    );
    return JSON.parse(text) as Report;
  }

  /** A scenario file's text (YAML or JSON) or object, run as `loadgen run FILE`. */
  async runScenario(scenario: string | Record<string, unknown>, threads = 1): Promise<Report> {
    const text = typeof scenario === "string" ? scenario : JSON.stringify(scenario);
    // Checked here, on this thread, so that its error can be read back.
    if (this.lib.symbols.loadgen_check_scenario(cString(text)) !== 0) {
      throw lastError(this.lib, "loadgen_check_scenario");
    }
    const pointer = await this.lib.symbols.loadgen_run_scenario(cString(text), threads);
    const report = take(this.lib, pointer);
    if (report === null) {
      throw new LoadgenError("loadgen_run_scenario failed (the scenario checked, the run could not be made)");
    }
    return JSON.parse(report) as Report;
  }

  close(): void {
    this.lib.close();
  }
}
