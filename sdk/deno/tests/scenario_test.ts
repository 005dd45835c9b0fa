import { k6LikeSummary, LoadgenFFI, runScenario } from "../mod.ts";
import { assert, assertEquals, startTarget } from "./helpers.ts";

Deno.test("runScenario runs a scenario object through the native engine", async () => {
  const target = await startTarget();
  const ffi = new LoadgenFFI();
  try {
    const report = await runScenario({
      defaults: { base_url: target.url },
      scenarios: {
        hello: {
          executor: "per-vu-iterations",
          vus: 2,
          iterations: 5,
          steps: [{ name: "home", url: "/", checks: { status_in: [200] } }],
        },
      },
    }, { ffi });
    assertEquals(report.scenario!.iterations.completed, 10);
    assert(k6LikeSummary(report).includes("http_reqs"));
  } finally {
    ffi.close();
    await target.stop();
  }
});

Deno.test("the examples run against the built-in target", async () => {
  const target = await startTarget();
  try {
    for (const example of ["simple", "correlation_mvp", "cookie_redirect_local_mvp", "protocol-matrix", "ab-stages"]) {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", new URL(`../examples/${example}.ts`, import.meta.url).pathname],
        env: { LOADGEN_TARGET: target.url, LOADGEN_TARGET_TLS: target.tlsUrl },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
      assert(output.success, `examples/${example}.ts failed:\n${text}`);
    }
  } finally {
    await target.stop();
  }
});
