/** `runScenario` and `mergeReports`: the free functions over a shared `LoadgenFFI`. */

import { LoadgenFFI } from "./batch.ts";
import type { Report } from "./types.ts";

let shared: LoadgenFFI | undefined;

/** The library opened once, for the free functions. */
export function library(): LoadgenFFI {
  shared ??= new LoadgenFFI();
  return shared;
}

/**
 * Runs a scenario (a scenario file's text, YAML or JSON, or the object it
 * stands for: docs/scenarios.md) through the native engine, as `loadgen
 * run FILE` does, without blocking the event loop. A path ending in
 * `.yaml`, `.yml` or `.json` is read first.
 */
export async function runScenario(
  scenario: string | Record<string, unknown>,
  options: { threads?: number; ffi?: LoadgenFFI } = {},
): Promise<Report> {
  const ffi = options.ffi ?? library();
  let text = scenario;
  if (typeof scenario === "string" && /\.(ya?ml|json)$/.test(scenario) && !scenario.includes("\n")) {
    text = await Deno.readTextFile(scenario);
  }
  return ffi.runScenario(text, options.threads ?? 1);
}

/** Reports (with their histograms) added up as `loadgen merge` adds them. */
export function mergeReports(reports: Report[], ffi?: LoadgenFFI): Report {
  return (ffi ?? library()).merge(reports);
}
