/**
 * `Controller`: a distributed run driven from Deno, over the HTTP API of
 * `loadgen worker`s (docs/distributed.md): each worker gets its execution
 * segment of the plan and one start time (in its own clock, from the
 * offset measured over `/v1/clock`); their reports are merged through the
 * library, as `loadgen --workers` merges them.
 */

import type { LoadgenFFI } from "./batch.ts";
import type { PlanInput, Report } from "./types.ts";

export interface WorkerAddress {
  /** `http://HOST:PORT` of a `loadgen worker`. */
  url: string;
  /** The first line of the worker's `--token-file`. */
  token: string;
}

export interface ControllerOptions {
  /** How long before the start every worker is told of it [2000 ms]. */
  leadMs?: number;
  /** After a cancel, how long requests in flight may finish [1000 ms]. */
  stopGraceMs?: number;
}

interface Fraction {
  numerator: number;
  denominator: number;
}

export interface WorkerResult {
  worker: string;
  report?: Report;
  error?: string;
}

export class Controller {
  #workers: WorkerAddress[];
  #ffi: LoadgenFFI;
  #options: Required<ControllerOptions>;

  constructor(workers: WorkerAddress[], ffi: LoadgenFFI, options: ControllerOptions = {}) {
    if (workers.length === 0) throw new Error("Controller: no worker");
    this.#workers = workers;
    this.#ffi = ffi;
    this.#options = { leadMs: options.leadMs ?? 2000, stopGraceMs: options.stopGraceMs ?? 1000 };
  }

  #call(worker: WorkerAddress, path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${worker.token}`);
    return fetch(`${worker.url}${path}`, { ...init, headers });
  }

  /** The worker's clock minus ours, in µs, from the lowest-latency of a few samples. */
  async clockOffsetUs(worker: WorkerAddress, samples = 5): Promise<number> {
    let best = { rtt: Infinity, offset: 0 };
    for (let i = 0; i < samples; i++) {
      const sent = Date.now() * 1000;
      const answer = await this.#call(worker, "/v1/clock");
      if (!answer.ok) throw new Error(`${worker.url}/v1/clock: ${answer.status} ${await answer.text()}`);
      const { time_us } = await answer.json() as { time_us: number };
      const received = Date.now() * 1000;
      const rtt = received - sent;
      if (rtt < best.rtt) best = { rtt, offset: time_us - (sent + rtt / 2) };
    }
    return best.offset;
  }

  /** The worker's segments: equal parts of [0, 1], as `--workers` cuts them. */
  segments(): { from: Fraction; to: Fraction; sequence: Fraction[] }[] {
    const n = this.#workers.length;
    const sequence = Array.from({ length: n + 1 }, (_, i) => fraction(i, n));
    return this.#workers.map((_, i) => ({ from: sequence[i], to: sequence[i + 1], sequence }));
  }

  /** Runs `plan` on every worker at once; returns the merged report and each worker's. */
  async run(plan: PlanInput): Promise<{ report: Report; workers: WorkerResult[] }> {
    const offsets = await Promise.all(this.#workers.map((w) => this.clockOffsetUs(w)));
    const startUs = Date.now() * 1000 + this.#options.leadMs * 1000;
    const segments = this.segments();
    const results = await Promise.all(this.#workers.map((worker, i) =>
      this.#runOne(worker, {
        plan: { ...plan, segment: segments.length > 1 ? segments[i] : null },
        start_at_us: Math.round(startUs + offsets[i]),
        stop_grace_ms: this.#options.stopGraceMs,
      })
    ));
    const reports = results.flatMap((r) => (r.report ? [r.report] : []));
    if (reports.length === 0) {
      throw new Error(`every worker failed: ${results.map((r) => `${r.worker}: ${r.error}`).join("; ")}`);
    }
    return { report: this.#ffi.merge(reports), workers: results };
  }

  /** Asks every worker to stop its run. */
  async cancel(): Promise<void> {
    await Promise.all(this.#workers.map(async (w) => {
      const answer = await this.#call(w, "/v1/cancel", { method: "POST" });
      await answer.body?.cancel();
    }));
  }

  async #runOne(worker: WorkerAddress, body: unknown): Promise<WorkerResult> {
    const answer = await this.#call(worker, "/v1/run", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!answer.ok) return { worker: worker.url, error: `${answer.status} ${(await answer.text()).trim()}` };
    const rows: unknown[] = [];
    for await (const event of ndjson(answer.body!)) {
      if (event.event === "interval") rows.push(event.row);
      if (event.event === "report") {
        // The stream carries the seconds apart from the report: put them back.
        const report = event.report as Report;
        report.intervals = rows as Report["intervals"];
        return { worker: worker.url, report };
      }
      if (event.event === "failed") return { worker: worker.url, error: String(event.error) };
    }
    return { worker: worker.url, error: "the stream ended without a report" };
  }
}

function fraction(numerator: number, denominator: number): Fraction {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const d = gcd(numerator, denominator) || 1;
  return { numerator: numerator / d, denominator: denominator / d };
}

async function* ndjson(body: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) yield JSON.parse(line);
    }
  }
  if (buffered.trim()) yield JSON.parse(buffered);
}
