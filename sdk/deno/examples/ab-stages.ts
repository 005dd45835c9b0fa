// A/B under the same ramp: two variants of a page (A small, B 16 KiB)
// each run through ramping stages, then their latencies side by side.
import { LoadgenFFI, type Report, runScenario } from "../mod.ts";

const target = Deno.env.get("LOADGEN_TARGET") ?? "http://127.0.0.1:8080";
const ffi = new LoadgenFFI();
const variants = { A: "/", B: "/?s=16384" };
const results: Record<string, Report> = {};
for (const [name, path] of Object.entries(variants)) {
  results[name] = await runScenario({
    defaults: { base_url: target },
    scenarios: {
      [name]: {
        executor: "ramping-vus",
        startVUs: 1,
        stages: [{ duration: "1s", target: 4 }, { duration: "1s", target: 4 }, { duration: "500ms", target: 0 }],
        gracefulRampDown: "0s",
        steps: [{ name: "page", url: path, checks: { status_in: [200] } }],
      },
    },
  }, { ffi });
}
for (const [name, report] of Object.entries(results)) {
  const t = report.request_time;
  console.log(`${name}: ${report.requests.succeeded} requests, p50 ${t.p50_us} µs, p95 ${t.p95_us} µs`);
}
ffi.close();
if (Object.values(results).some((r) => r.requests.succeeded === 0)) Deno.exit(1);
