import { LoadgenError, LoadgenFFI, type Report } from "../mod.ts";
import { assert, assertEquals, loadgen, startTarget } from "./helpers.ts";

const counts = (r: Report) => ({ requests: r.requests, status_codes: r.status_codes, errors: r.errors });

Deno.test("a 1,000-request benchmark counts what the CLI counts", async () => {
  const target = await startTarget();
  const ffi = new LoadgenFFI();
  try {
    const url = `${target.url}/`;
    const report = await ffi.runPlan({ uris: [url], clients: 4, mode: { requests: 1000 } });
    assertEquals(report.requests.succeeded, 1000);
    const file = await Deno.makeTempFile({ suffix: ".json" });
    await loadgen(["-q", "-n", "1000", "-c", "4", url, "-o", file]);
    const byCli = JSON.parse(await Deno.readTextFile(file)) as Report;
    assertEquals(counts(report), counts(byCli));
    assertEquals(report.config, byCli.config);
    await Deno.remove(file);
  } finally {
    ffi.close();
    await target.stop();
  }
});

Deno.test("run() leaves the event loop free: a timer keeps firing", async () => {
  const target = await startTarget();
  const ffi = new LoadgenFFI();
  try {
    const handle = ffi.create({
      uris: [`${target.url}/`],
      mode: { duration: { duration: { secs: 2, nanos: 0 }, warm_up: { secs: 0, nanos: 0 } } },
    });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const report = await ffi.run(handle);
    clearInterval(timer);
    ffi.destroy(handle);
    assert(report.requests.succeeded > 0);
    assert(ticks >= 20, `the timer fired ${ticks} times in a 2 s run`);
  } finally {
    ffi.close();
    await target.stop();
  }
});

Deno.test("a cancel ends a timed run; the snapshot shows its progress", async () => {
  const target = await startTarget();
  const ffi = new LoadgenFFI();
  try {
    const handle = ffi.create({
      uris: [`${target.url}/`],
      mode: { duration: { duration: { secs: 30, nanos: 0 }, warm_up: { secs: 0, nanos: 0 } } },
    });
    let seen = 0;
    setTimeout(() => {
      const snapshot = ffi.snapshot(handle);
      seen = snapshot.responses;
      ffi.cancel(handle);
    }, 1500);
    const started = Date.now();
    const report = await ffi.run(handle);
    ffi.destroy(handle);
    assert(Date.now() - started < 5000, "the cancel did not end the run");
    assert(seen > 0, "the snapshot saw no response");
    assert(report.requests.succeeded >= seen);
  } finally {
    ffi.close();
    await target.stop();
  }
});

Deno.test("merge equals loadgen merge on the same files", async () => {
  const target = await startTarget();
  const ffi = new LoadgenFFI();
  try {
    const plan = { uris: [`${target.url}/`], clients: 2, mode: { requests: 200 } };
    const parts = [await ffi.runPlan(plan), await ffi.runPlan(plan)];
    const files: string[] = [];
    for (const part of parts) {
      const file = await Deno.makeTempFile({ suffix: ".json" });
      await Deno.writeTextFile(file, JSON.stringify(part));
      files.push(file);
    }
    const out = await Deno.makeTempFile({ suffix: ".json" });
    await loadgen(["merge", ...files, "-o", out]);
    const merged = ffi.merge(parts);
    assertEquals(merged.requests.succeeded, 400);
    assertEquals(merged, JSON.parse(await Deno.readTextFile(out)));
  } finally {
    ffi.close();
    await target.stop();
  }
});

Deno.test("errors come back as LoadgenError", async () => {
  const ffi = new LoadgenFFI();
  try {
    let error: unknown;
    try {
      ffi.create({ uris: ["http://127.0.0.1:1/"], clients: 0 });
    } catch (e) {
      error = e;
    }
    assert(error instanceof LoadgenError && error.message.startsWith("clients:"), String(error));
    const handle = ffi.create({ uris: ["http://no-such-host.invalid/"] });
    let runError: unknown;
    try {
      await ffi.run(handle);
    } catch (e) {
      runError = e;
    }
    assert(runError instanceof LoadgenError, String(runError));
    ffi.destroy(handle);
  } finally {
    ffi.close();
  }
});
