import { Controller, LoadgenFFI, type Report } from "../mod.ts";
import { assertEquals, loadgen, loadgenBinary, startTarget } from "./helpers.ts";

/** A `loadgen worker` on a free port, with its token; ready when it prints its address. */
async function startWorker(token: string) {
  const tokenFile = await Deno.makeTempFile();
  await Deno.writeTextFile(tokenFile, `${token}\n`);
  await Deno.chmod(tokenFile, 0o600);
  const child = new Deno.Command(loadgenBinary(), {
    args: ["worker", "--listen", "127.0.0.1:0", "--token-file", tokenFile],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let url: string | undefined;
  while (!url) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`loadgen worker ended: ${seen}`);
    seen += value;
    url = seen.match(/listening on (\S+)/)?.[1];
  }
  // Keep reading stderr, so that the worker never blocks writing to it.
  (async () => {
    while (!(await lines.read()).done) { /* drained */ }
  })();
  return {
    url: url.replace(/\/$/, ""),
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(tokenFile);
    },
  };
}

Deno.test("a Controller splits a plan between two workers and merges their reports", async () => {
  const target = await startTarget();
  const workers = [await startWorker("token-one"), await startWorker("token-two")];
  const ffi = new LoadgenFFI();
  try {
    const controller = new Controller(
      [{ url: workers[0].url, token: "token-one" }, { url: workers[1].url, token: "token-two" }],
      ffi,
      { leadMs: 500 },
    );
    const url = `${target.url}/`;
    const { report, workers: parts } = await controller.run({ uris: [url], clients: 4, mode: { requests: 1000 } });
    assertEquals(parts.map((p) => p.error ?? null), [null, null]);
    assertEquals(parts.map((p) => p.report!.requests.succeeded), [500, 500]);
    assertEquals(report.requests.succeeded, 1000);

    const file = await Deno.makeTempFile({ suffix: ".json" });
    await loadgen(["-q", "-n", "1000", "-c", "4", url, "-o", file]);
    const byCli = JSON.parse(await Deno.readTextFile(file)) as Report;
    assertEquals(report.status_codes, byCli.status_codes);
  } finally {
    ffi.close();
    for (const worker of workers) await worker.stop();
    await target.stop();
  }
});
