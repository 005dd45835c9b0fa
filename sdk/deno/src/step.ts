/** `LoadgenStepFFI`: step sessions, one scenario step at a time with a cookie jar. */

import { cString, lastError, type Library, LoadgenError, open, take } from "./library.ts";
import type { Step, StepResponse } from "./types.ts";

export class StepSession {
  #lib: Library;
  #handle: bigint;

  constructor(lib: Library, handle: bigint) {
    this.#lib = lib;
    this.#handle = handle;
  }

  /** Sends `step` and returns its response, on a thread of its own: the event loop goes on. */
  async execute(step: Step): Promise<StepResponse> {
    const pointer = await this.#lib.symbols.loadgen_step_execute(this.#handle, cString(JSON.stringify(step)));
    const text = take(this.#lib, pointer);
    if (text === null) {
      // The step ran on another thread, whose last error is not ours: the session keeps it.
      const why = take(this.#lib, this.#lib.symbols.loadgen_step_session_last_error(this.#handle));
      throw new LoadgenError(why ?? "loadgen_step_execute failed");
    }
    return JSON.parse(text) as StepResponse;
  }

  /** Forgets the cookies. */
  reset(): void {
    if (this.#lib.symbols.loadgen_step_session_reset(this.#handle) !== 0) {
      throw lastError(this.#lib, "loadgen_step_session_reset");
    }
  }

  close(): void {
    if (this.#handle !== 0n) {
      this.#lib.symbols.loadgen_step_session_destroy(this.#handle);
      this.#handle = 0n;
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

export class LoadgenStepFFI {
  readonly lib: Library;

  constructor(path?: string) {
    this.lib = open(path);
  }

  /** A session whose steps start from `defaults` (a scenario file's `defaults`: `base_url`, ...). */
  session(defaults: Record<string, unknown> = {}): StepSession {
    const handle = BigInt(this.lib.symbols.loadgen_step_session_create(cString(JSON.stringify(defaults))));
    if (handle === 0n) throw lastError(this.lib, "loadgen_step_session_create");
    return new StepSession(this.lib, handle);
  }

  close(): void {
    this.lib.close();
  }
}
