/**
 * Process start-up settings of a long-running server.
 *
 * PGlite is PostgreSQL compiled to WebAssembly. Compiling it makes V8's background threads
 * allocate and free tens of MiB through glibc's malloc; glibc then raises its trim threshold past
 * those frees and never hands the memory back (about 60 MiB of RSS that stays for the life of the
 * process). Attachment transfers do the same on either store: their chunk buffers, freed, stayed
 * in malloc's arenas (measured on PostgreSQL: idle RSS 27% above its level before 8 concurrent
 * 24 MiB transfers, 2% with the settings). Fixed trim and mmap thresholds return it. glibc reads
 * them only when a process starts, so the CLI re-executes itself once, in the same process (same
 * PID: supervisors, Docker and systemd see no change), with the settings below. Only this module
 * (no imports) is loaded before that.
 *
 * PGlite's WebAssembly has a second cost: V8 compiles its hot functions again with its optimizing
 * compiler (TurboFan), and PostgreSQL's largest functions (the SQL parser, the executor) take
 * hundreds of MiB of compiler memory each time, for a moment. Measured on a first start on an empty
 * PGlite directory: 1.07 GiB RSS at the peak; opening an existing directory 680 MiB; 4,000 reads
 * after it 830 MiB, with an idle server at 145 MiB. So the re-execution also runs V8 with
 * `--liftoff-only` ({@link V8_FLAGS}): WebAssembly stays compiled by its baseline compiler. The same
 * reads then peak at 300 MiB, and cost about 25% more CPU inside PGlite once warm (435 → 560 ms for
 * 4,000 point reads), less before (the compilations are gone). A process on PostgreSQL runs no
 * WebAssembly: the flag changes nothing there.
 *
 * Measured and not used: a smaller V8 young generation (`--max-semi-space-size=2`) saves about
 * 10 MiB idle but costs 15–25% more server CPU per read/items request.
 *
 * Opt out with `VAULTLINE_MEMORY_TUNING=off`.
 */

/** The environment variable that turns the re-execution off (`off`) or on (`on`, the default). */
export const MEMORY_TUNING_ENV = 'VAULTLINE_MEMORY_TUNING';

/**
 * glibc malloc settings, fixed instead of dynamic: a trim threshold of 128 KiB, so that memory freed
 * at the top of malloc's heaps is returned, and an mmap threshold of 16 KiB, so that the compiler
 * threads' larger blocks are mapped on their own and unmapped when freed instead of fragmenting the
 * arenas. Measured on read/items: no change in server CPU per request.
 */
export const GLIBC_SETTINGS: readonly string[] = [
  'glibc.malloc.trim_threshold=131072',
  'glibc.malloc.mmap_threshold=16384',
];

/**
 * V8 flags of a server: WebAssembly (PGlite) compiled by the baseline compiler only, never by the
 * optimizing one, whose compilations of PostgreSQL's large functions take hundreds of MiB at once.
 * V8 reads it only at start (set later, it is ignored): it is given on the re-executed command line.
 */
export const V8_FLAGS: readonly string[] = ['--liftoff-only'];

/** The commands that leave a server running: the short administration commands are not worth it. */
const SERVER_COMMANDS = new Set(['start', 'quickstart']);

const OFF = new Set(['off', '0', 'false', 'no']);
const ON = new Set(['on', '1', 'true', 'yes', '']);

/** What the running process looks like. */
export interface ProcessView {
  /** The arguments after the script (`start`, …). */
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Node's and V8's options of the running process (`process.execArgv`). */
  execArgv?: readonly string[];
}

/** How to re-execute: the environment and Node's options. */
export interface MemoryTuningPlan {
  env: NodeJS.ProcessEnv;
  execArgv: string[];
}

/** The name of a setting: `glibc.malloc.trim_threshold` of `glibc.malloc.trim_threshold=131072`. */
function nameOf(setting: string): string {
  const at = setting.indexOf('=');
  return at < 0 ? setting : setting.slice(0, at);
}

/**
 * Whether the memory tuning is wanted, from `VAULTLINE_MEMORY_TUNING`.
 *
 * @throws Error on a value other than on/off (and their synonyms 1/0, true/false, yes/no).
 */
export function memoryTuningEnabled(env: NodeJS.ProcessEnv): boolean {
  const value = (env[MEMORY_TUNING_ENV] ?? '').trim().toLowerCase();
  if (OFF.has(value)) return false;
  if (ON.has(value)) return true;
  throw new Error(
    `Invalid configuration: ${MEMORY_TUNING_ENV} expects on or off, received ${JSON.stringify(env[MEMORY_TUNING_ENV])}.`,
  );
}

/**
 * Decides whether and how to re-execute: for a server command (either store), with the tuning on,
 * when a setting is still missing from `GLIBC_TUNABLES` or a flag of {@link V8_FLAGS} from Node's
 * options. A tunable the operator set already, whatever its value, is left as it is, and their
 * other tunables and options are kept.
 *
 * @returns The environment and options to re-execute with, or undefined when the process runs as it is.
 */
export function planMemoryTuning(view: ProcessView): MemoryTuningPlan | undefined {
  const command = view.args[0];
  if (command === undefined || !SERVER_COMMANDS.has(command)) return undefined;
  if (!memoryTuningEnabled(view.env)) return undefined;
  const tunables = (view.env.GLIBC_TUNABLES ?? '').split(':').filter((entry) => entry !== '');
  const tunableNames = new Set(tunables.map((entry) => nameOf(entry)));
  const missing = GLIBC_SETTINGS.filter((entry) => !tunableNames.has(nameOf(entry)));
  const execArgv = [...(view.execArgv ?? [])];
  const missingFlags = V8_FLAGS.filter((flag) => !execArgv.includes(flag));
  if (missing.length === 0 && missingFlags.length === 0) return undefined;
  return {
    env:
      missing.length === 0 ? view.env : { ...view.env, GLIBC_TUNABLES: [...missing, ...tunables].join(':') },
    execArgv: [...missingFlags, ...execArgv],
  };
}

/**
 * Re-executes the CLI with the memory settings when {@link planMemoryTuning} says so and the
 * platform can (`process.execve`: Node ≥ 23.11 on POSIX). Call it before anything else runs: the
 * process image is replaced, so nothing written or opened before survives.
 *
 * @returns Only when the process keeps running as it is (nothing to do, opted out, or no execve).
 * @throws Error on an invalid `VAULTLINE_MEMORY_TUNING`.
 */
export function applyMemoryTuning(): void {
  const script = process.argv[1];
  if (script === undefined || typeof process.execve !== 'function') return;
  const plan = planMemoryTuning({
    args: process.argv.slice(2),
    env: process.env,
    execArgv: process.execArgv,
  });
  if (plan === undefined) return;
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...plan.execArgv, script, ...process.argv.slice(2)],
      plan.env,
    );
  } catch (error) {
    // The server runs untuned rather than not at all.
    process.stderr.write(
      `warning: could not re-execute with the memory settings (${error instanceof Error ? error.message : String(error)}); running without them.\n`,
    );
  }
}
