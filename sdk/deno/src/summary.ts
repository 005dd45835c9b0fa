/** `printK6LikeSummary`: a report's figures laid out as k6's end-of-test summary. */

import type { Report, TimeStats } from "./types.ts";

function ms(us: number | undefined): string {
  if (us === undefined) return "-";
  return us >= 1000 ? `${(us / 1000).toFixed(2)}ms` : `${us}µs`;
}

function trend(name: string, stats: TimeStats | undefined): string {
  if (!stats) return "";
  const dots = ".".repeat(Math.max(1, 30 - name.length));
  return `     ${name}${dots}: avg=${ms(Math.round(stats.mean_us))} min=${ms(stats.min_us)} ` +
    `med=${ms(stats.p50_us)} max=${ms(stats.max_us)} p(90)=${ms(stats.p90_us)} p(95)=${ms(stats.p95_us)}\n`;
}

function counter(name: string, value: string): string {
  const dots = ".".repeat(Math.max(1, 30 - name.length));
  return `     ${name}${dots}: ${value}\n`;
}

/** The summary as text. */
export function k6LikeSummary(report: Report): string {
  const requests = report.requests;
  const elapsed = report.elapsed_s || 0;
  const rate = elapsed > 0 ? (requests.done / elapsed).toFixed(2) : "0";
  const failed = requests.failed + requests.errored + requests.timeout;
  const failedPct = requests.done > 0 ? ((100 * failed) / requests.done).toFixed(2) : "0.00";
  let text = "";
  const checks = report.scenario?.checks ?? [];
  for (const check of checks) {
    const mark = check.fails === 0 ? "✓" : "✗";
    text += `     ${mark} ${check.name}\n`;
  }
  if (checks.length) text += "\n";
  text += counter("http_req_failed", `${failedPct}% ${failed} out of ${requests.done}`);
  text += trend("http_req_duration", report.request_time);
  text += counter("http_reqs", `${requests.done} ${rate}/s`);
  for (const step of report.scenario?.steps ?? []) {
    text += counter(`step{${step.name}}`, `${step.requests.succeeded} succeeded`);
  }
  return text;
}

/** Prints the summary on stdout. */
export function printK6LikeSummary(report: Report): void {
  console.log(k6LikeSummary(report));
}
