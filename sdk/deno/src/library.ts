/**
 * libloadgen_ffi opened with Deno.dlopen: the symbols, C strings in and
 * out, and where the library is found.
 */

export const SYMBOLS = {
  loadgen_version: { parameters: [], result: "pointer" },
  loadgen_create: { parameters: ["buffer"], result: "u64" },
  // Runs on a thread of Deno's: the event loop goes on meanwhile.
  loadgen_run: { parameters: ["u64"], result: "pointer", nonblocking: true },
  loadgen_run_scenario: { parameters: ["buffer", "u32"], result: "pointer", nonblocking: true },
  loadgen_check_scenario: { parameters: ["buffer"], result: "i32" },
  loadgen_metrics_snapshot: { parameters: ["u64"], result: "pointer" },
  loadgen_cancel: { parameters: ["u64"], result: "i32" },
  loadgen_destroy: { parameters: ["u64"], result: "i32" },
  loadgen_merge_reports: { parameters: ["buffer"], result: "pointer" },
  loadgen_step_session_create: { parameters: ["buffer"], result: "u64" },
  // Runs on a thread of Deno's: a server in this same process can answer it.
  loadgen_step_execute: { parameters: ["u64", "buffer"], result: "pointer", nonblocking: true },
  loadgen_step_session_last_error: { parameters: ["u64"], result: "pointer" },
  loadgen_step_session_reset: { parameters: ["u64"], result: "i32" },
  loadgen_step_session_destroy: { parameters: ["u64"], result: "i32" },
  loadgen_last_error: { parameters: [], result: "pointer" },
  loadgen_free_string: { parameters: ["pointer"], result: "void" },
} as const;

export type Library = Deno.DynamicLibrary<typeof SYMBOLS>;

/** A call into the library failed; the message is the library's. */
export class LoadgenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LoadgenError";
  }
}

/** The library's path: `LOADGEN_FFI_LIB`, else the cargo target directory. */
export function findLibrary(): string {
  const named = Deno.env.get("LOADGEN_FFI_LIB");
  if (named) return named;
  const repo = new URL("../../../", import.meta.url).pathname;
  const target = Deno.env.get("CARGO_TARGET_DIR") ?? `${repo}target`;
  const tried: string[] = [];
  for (const profile of ["library", "release", "debug"]) {
    for (const path of [`${target}/${profile}/libloadgen_ffi.so`, `${target}/${profile}/deps/libloadgen_ffi.so`]) {
      tried.push(path);
      try {
        Deno.statSync(path);
        return path;
      } catch {
        // not there: the next one
      }
    }
  }
  throw new LoadgenError(
    `libloadgen_ffi.so not found (tried: ${tried.join(", ")}); build it with ` +
      "`cargo build -p loadgen-ffi --profile library` or name it with LOADGEN_FFI_LIB",
  );
}

export function open(path?: string): Library {
  return Deno.dlopen(path ?? findLibrary(), SYMBOLS);
}

/** A NUL-terminated UTF-8 copy of `text`. */
export function cString(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new TextEncoder().encode(text);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}

/** The text of a string the library returned, freed; null for NULL. */
export function take(lib: Library, pointer: Deno.PointerValue): string | null {
  if (pointer === null) return null;
  try {
    return Deno.UnsafePointerView.getCString(pointer);
  } finally {
    lib.symbols.loadgen_free_string(pointer);
  }
}

/** This thread's last error, as an exception. */
export function lastError(lib: Library, what: string): LoadgenError {
  return new LoadgenError(take(lib, lib.symbols.loadgen_last_error()) ?? `${what} failed`);
}

/** The text of a returned string, or the last error thrown. */
export function takeOrThrow(lib: Library, pointer: Deno.PointerValue, what: string): string {
  const text = take(lib, pointer);
  if (text === null) throw lastError(lib, what);
  return text;
}
