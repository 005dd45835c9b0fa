/** Where the SDK finds the library (docs/ffi.md, "Finding the library"), each case in a fresh Deno. */

import { findLibrary } from "../mod.ts";
import { assert } from "./helpers.ts";

const mod = new URL("../mod.ts", import.meta.url).href;

/** Runs `code` (with `mod` imported as `m`) in a new Deno with only the variables given. */
async function deno(code: string, env: Record<string, string>) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `import * as m from ${JSON.stringify(mod)};\n${code}`],
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { success: output.success, stdout: text(output.stdout), stderr: text(output.stderr) };
}

Deno.test("LOADGEN_FFI_LIB, when set, is the only place looked at", async () => {
  const missing = `${await Deno.makeTempDir()}/libloadgen_ffi.so`;
  const result = await deno("new m.LoadgenFFI();", { LOADGEN_FFI_LIB: missing });
  assert(!result.success, "a missing LOADGEN_FFI_LIB must fail");
  assert(result.stderr.includes(`tried: ${missing})`), result.stderr);
});

Deno.test("in a checkout, the cargo target directory is searched", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/debug`);
  await Deno.copyFile(findLibrary(), `${dir}/debug/libloadgen_ffi.so`);
  const found = await deno("console.log(m.findLibrary(), new m.LoadgenFFI().version());", { CARGO_TARGET_DIR: dir });
  assert(found.success, found.stderr);
  assert(found.stdout.startsWith(`${dir}/debug/libloadgen_ffi.so `), found.stdout);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("outside a build, the system's loader path is searched by name", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/lib`);
  await Deno.mkdir(`${dir}/no-target`);
  await Deno.copyFile(findLibrary(), `${dir}/lib/libloadgen_ffi.so`);
  const code = "console.log(m.findLibrary(), new m.LoadgenFFI().version());";
  const found = await deno(code, { CARGO_TARGET_DIR: `${dir}/no-target`, LD_LIBRARY_PATH: `${dir}/lib` });
  assert(found.success, found.stderr);
  assert(found.stdout.startsWith("libloadgen_ffi.so "), found.stdout);

  const nowhere = await deno("new m.LoadgenFFI();", { CARGO_TARGET_DIR: `${dir}/no-target` });
  assert(!nowhere.success, "no library anywhere must fail");
  assert(nowhere.stderr.includes("libloadgen_ffi.so not found"), nowhere.stderr);
  assert(nowhere.stderr.includes(`${dir}/no-target/library/libloadgen_ffi.so`), nowhere.stderr);
  await Deno.remove(dir, { recursive: true });
});
