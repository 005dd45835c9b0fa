/** What the SDK's tests share: `loadgen serve` on free ports, and the `loadgen` binary. */

export function loadgenBinary(): string {
  const named = Deno.env.get("LOADGEN_BIN");
  if (named) return named;
  const repo = new URL("../../../", import.meta.url).pathname;
  const target = Deno.env.get("CARGO_TARGET_DIR") ?? `${repo}target`;
  for (const profile of ["debug", "library", "release"]) {
    const path = `${target}/${profile}/loadgen`;
    try {
      Deno.statSync(path);
      return path;
    } catch {
      // the next profile
    }
  }
  throw new Error("the loadgen binary was not found: build it (cargo build -p loadgen) or set LOADGEN_BIN");
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

export interface Target {
  url: string;
  tlsUrl: string;
  stop(): Promise<void>;
}

/** `loadgen serve` on loopback, ready when its port answers. */
export async function startTarget(): Promise<Target> {
  const port = freePort();
  const tlsPort = freePort();
  const child = new Deno.Command(loadgenBinary(), {
    args: ["serve", "--listen", `127.0.0.1:${port}`, "--tls-listen", `127.0.0.1:${tlsPort}`],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error("loadgen serve did not start");
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    tlsUrl: `https://127.0.0.1:${tlsPort}`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** Runs `loadgen` with `args`, failing on a non-zero exit. */
export async function loadgen(args: string[]): Promise<string> {
  const output = await new Deno.Command(loadgenBinary(), { args, stdout: "piped", stderr: "piped" }).output();
  if (!output.success) {
    throw new Error(`loadgen ${args.join(" ")}: ${new TextDecoder().decode(output.stderr)}`);
  }
  return new TextDecoder().decode(output.stdout);
}

export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

export function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}\nactual:   ${a}\nexpected: ${e}`);
}
