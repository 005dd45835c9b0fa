// A 1,000-request benchmark through the library, with k6's summary.
//   deno run --allow-all sdk/deno/examples/simple.ts
import { LoadgenFFI, printK6LikeSummary } from "../mod.ts";

const target = Deno.env.get("LOADGEN_TARGET") ?? "http://127.0.0.1:8080";
const ffi = new LoadgenFFI();
console.log(`loadgen ${ffi.version()}`);
const report = await ffi.runPlan({ uris: [`${target}/`], clients: 4, mode: { requests: 1000 } });
printK6LikeSummary(report);
ffi.close();
if (report.requests.succeeded !== 1000) Deno.exit(1);
