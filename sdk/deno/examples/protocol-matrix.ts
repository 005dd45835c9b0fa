// The same load over HTTP/1.1, HTTP/2 and HTTP/3, as a batch plan and as
// a scenario, against the built-in target's TLS port.
import { LoadgenFFI, runScenario } from "../mod.ts";

const tls = Deno.env.get("LOADGEN_TARGET_TLS") ?? "https://127.0.0.1:8443";
const ffi = new LoadgenFFI();
const protocols = [
  { name: "h1", alpn: ["http/1.1"] },
  { name: "h2", alpn: ["h2"] },
  { name: "h3", alpn: ["h3"] },
];
let failed = false;
for (const { name, alpn } of protocols) {
  const batch = await ffi.runPlan({
    uris: [`${tls}/`],
    alpn,
    tls: { insecure: true },
    clients: 2,
    mode: { requests: 200 },
  });
  const scenario = await runScenario({
    defaults: { base_url: tls, protocol: name, insecure: true },
    scenarios: { s: { executor: "shared-iterations", vus: 2, iterations: 50, steps: [{ name: "home", url: "/" }] } },
  }, { ffi });
  console.log(
    `${name}: batch ${batch.requests.succeeded}/200 over ${batch.application_protocol}, ` +
      `scenario ${scenario.requests.succeeded}/50 over ${scenario.application_protocol}`,
  );
  failed ||= batch.requests.succeeded !== 200 || scenario.requests.succeeded !== 50;
}
ffi.close();
if (failed) Deno.exit(1);
