/**
 * The JSON the library takes and gives, typed: a plan (`PlanInput`,
 * docs/ffi.md), a report (docs/output.md), a snapshot and a step reply.
 * Fields not listed are there too; these are the ones read most.
 */

/** A `std::time::Duration` as serde writes it. */
export interface Duration {
  secs: number;
  nanos: number;
}

export type Mode =
  | { requests: number }
  | { duration: { duration: Duration; warm_up: Duration } };

/** `loadgen_core::PlanInput`: every field may be left out. */
export interface PlanInput {
  uris: string[];
  clients?: number;
  threads?: number;
  max_concurrent_streams?: number;
  mode?: Mode;
  method?: string | null;
  headers?: [string, string][];
  /** base64 */
  body?: string | null;
  alpn?: string[];
  cleartext?: "h2c" | "http1";
  tls?: { insecure?: boolean; [key: string]: unknown };
  load?: Record<string, unknown>;
  timeouts?: Record<string, Duration | null>;
  segment?: unknown;
  [key: string]: unknown;
}

export interface RequestCounts {
  total: number;
  started: number;
  done: number;
  succeeded: number;
  failed: number;
  errored: number;
  timeout: number;
  [key: string]: number;
}

export interface TimeStats {
  count: number;
  min_us: number;
  max_us: number;
  mean_us: number;
  stdev_us: number;
  p50_us: number;
  p75_us: number;
  p90_us: number;
  p95_us: number;
  p99_us: number;
  [key: string]: number;
}

export interface IntervalRow {
  start_s: number;
  duration_s: number;
  requests: number;
  errors: number;
  req_per_s: number;
  p50_us: number;
  p99_us: number;
  status_codes: Record<string, number>;
  error_kinds: Record<string, number>;
}

export interface ScenarioStep {
  name: string;
  requests: RequestCounts;
  [key: string]: unknown;
}

export interface Report {
  loadgen_version: string;
  started_at: string;
  ended_at: string;
  config: Record<string, unknown> & { uris: string[]; clients: number; mode: string };
  application_protocol: string | null;
  elapsed_s: number;
  requests: RequestCounts;
  status_codes: {
    "1xx": number;
    "2xx": number;
    "3xx": number;
    "4xx": number;
    "5xx": number;
    by_code: Record<string, number>;
  };
  errors: Record<string, number | Record<string, string>>;
  bytes?: Record<string, number>;
  req_per_s?: number;
  connections?: number;
  request_time: TimeStats;
  request_time_raw: TimeStats;
  connect_time?: TimeStats;
  intervals: IntervalRow[];
  histograms?: Record<string, unknown>;
  scenario?: {
    steps: ScenarioStep[];
    checks: { name: string; passes: number; fails: number }[];
    iterations: Record<string, number>;
    [key: string]: unknown;
  } | null;
  [key: string]: unknown;
}

/** `loadgen_metrics_snapshot`. */
export interface Snapshot {
  running: boolean;
  elapsed_s: number;
  progress_percent: number;
  intervals: number;
  responses: number;
  errors: number;
  status_codes: Record<string, number>;
  error_kinds: Record<string, number>;
  req_per_s: number;
  error: string | null;
}

/** A scenario file's step (docs/scenarios.md). */
export interface Step {
  url: string;
  name?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  form?: Record<string, string>;
  json?: unknown;
  follow_redirects?: number;
  cookies?: boolean;
  timeout?: string;
  checks?: Record<string, unknown>;
  extract?: Record<string, unknown>[];
}

/** `loadgen_step_execute`'s reply. */
export interface StepResponse {
  status?: number;
  headers?: [string, string][];
  body?: string;
  url?: string;
  redirects?: number;
  duration_us?: number;
  error?: string;
  message?: string | null;
  checks: Record<string, boolean>;
  extracted: Record<string, string | null>;
}
