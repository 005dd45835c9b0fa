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

/** The name the system's loader searches for (`LD_LIBRARY_PATH`, `ldconfig`'s directories). */
const LOADER_NAME = "libloadgen_ffi.so";

/**
 * Where the library is looked for, in order (docs/ffi.md, "Finding the
 * library"): the path `LOADGEN_FFI_LIB` names, and nothing else when it is
 * set; the cargo target directory of the checkout this module sits in
 * (`CARGO_TARGET_DIR`, else `target/`: `library/`, `release/`, `debug/`);
 * the system's loader path, by name. (A Deno module has no install step,
 * so nothing is bundled with it, as `pip install` bundles the library
 * with the Python package.)
 */
export function libraryCandidates(): string[] {
  const named = Deno.env.get("LOADGEN_FFI_LIB");
  if (named) return [named];
  const candidates: string[] = [];
  const repo = new URL("../../../", import.meta.url);
  if (repo.protocol === "file:" && exists(new URL("Cargo.toml", repo).pathname)) {
    const target = Deno.env.get("CARGO_TARGET_DIR") ?? `${repo.pathname}target`;
    for (const profile of ["library", "release", "debug"]) {
      candidates.push(`${target}/${profile}/libloadgen_ffi.so`, `${target}/${profile}/deps/libloadgen_ffi.so`);
    }
  }
  candidates.push(LOADER_NAME);
  return candidates;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function notFound(tried: string[]): LoadgenError {
  return new LoadgenError(
    `libloadgen_ffi.so not found (tried: ${tried.join(", ")}); build it with ` +
      "`cargo build -p loadgen-ffi --profile library`, or name it with LOADGEN_FFI_LIB",
  );
}

/** The first path of `libraryCandidates()` that is a file (a bare name: the loader's choice). */
export function findLibrary(): string {
  const candidates = libraryCandidates();
  const found = candidates.find((path) => !path.includes("/") || exists(path));
  if (found === undefined) throw notFound(candidates);
  return found;
}

/** The library at `path`, else the first found in `libraryCandidates()`. */
export function open(path?: string): Library {
  if (path !== undefined) return Deno.dlopen(path, SYMBOLS);
  const candidates = libraryCandidates();
  for (const candidate of candidates) {
    if (candidate.includes("/")) {
      if (exists(candidate)) return Deno.dlopen(candidate, SYMBOLS);
      continue;
    }
    try {
      return Deno.dlopen(candidate, SYMBOLS);
    } catch {
      // the loader did not find it either
    }
  }
  throw notFound(candidates);
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
