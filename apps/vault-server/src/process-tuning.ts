/**
 * Process start-up settings of a long-running server on the embedded store (PGlite).
 *
 * PGlite is PostgreSQL compiled to WebAssembly. Compiling it makes V8's background threads
 * allocate and free tens of MiB through glibc's malloc; glibc then raises its trim threshold past
 * those frees and never hands the memory back (about 60 MiB of RSS that stays for the life of the
 * process). A fixed trim threshold returns it. Neither that nor V8's young-generation size can be
 * changed once the process runs, so the CLI re-executes itself once, in the same process (same PID:
 * supervisors, Docker and systemd see no change), with the settings below. Only this module's
 * imports (Node built-ins) are loaded before that.
 *
 * Opt out with `VAULTLINE_MEMORY_TUNING=off`.
 */

/** The environment variable that turns the re-execution off (`off`) or on (`on`, the default). */
export const MEMORY_TUNING_ENV = 'VAULTLINE_MEMORY_TUNING';

/**
 * glibc malloc settings: a fixed trim threshold of 128 KiB (also fixing the mmap threshold at its
 * default) instead of the dynamic one, so that freed memory at the top of malloc's heaps is returned.
 */
export const GLIBC_SETTINGS: readonly string[] = ['glibc.malloc.trim_threshold=131072'];

/**
 * V8 flags: a young generation of at most 2 × 2 MiB instead of growing to 2 × 8 MiB during
 * start-up (module loading, WebAssembly instantiation, migrations) and staying there while idle.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];

/** The commands that leave a server running: the short administration commands are not worth it. */
const SERVER_COMMANDS = new Set(['start', 'quickstart']);

const OFF = new Set(['off', '0', 'false', 'no']);
const ON = new Set(['on', '1', 'true', 'yes', '']);

/** What the running process looks like. */
export interface ProcessView {
  /** The arguments after the script (`start`, …). */
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Node's own flags on the command line (`process.execArgv`). */
  execArgv: readonly string[];
}

/** How to re-execute: Node's flags to add and the environment to run with. */
export interface TuningPlan {
  nodeFlags: string[];
  env: NodeJS.ProcessEnv;
}

/** The name of a flag or setting: `--max-semi-space-size` of `--max-semi-space-size=2`. */
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
 * Decides whether and how to re-execute: for a server command on PGlite (no `DATABASE_URL`), with
 * the tuning on, when a setting is still missing. A flag or tunable the operator set already (on the
 * command line, in `NODE_OPTIONS` or in `GLIBC_TUNABLES`), whatever its value, is left as it is.
 *
 * @returns The plan, or undefined when the process runs as it is.
 */
export function planMemoryTuning(view: ProcessView): TuningPlan | undefined {
  const command = view.args[0];
  if (command === undefined || !SERVER_COMMANDS.has(command)) return undefined;
  if ((view.env.DATABASE_URL ?? '').trim() !== '') return undefined;
  if (!memoryTuningEnabled(view.env)) return undefined;
  const given = new Set(
    [...view.execArgv, ...(view.env.NODE_OPTIONS ?? '').split(/\s+/)].map((flag) => nameOf(flag)),
  );
  const nodeFlags = NODE_FLAGS.filter((flag) => !given.has(nameOf(flag)));
  const tunables = (view.env.GLIBC_TUNABLES ?? '').split(':').filter((entry) => entry !== '');
  const tunableNames = new Set(tunables.map((entry) => nameOf(entry)));
  const glibc = GLIBC_SETTINGS.filter((entry) => !tunableNames.has(nameOf(entry)));
  if (nodeFlags.length === 0 && glibc.length === 0) return undefined;
  return {
    nodeFlags,
    env: glibc.length === 0 ? view.env : { ...view.env, GLIBC_TUNABLES: [...glibc, ...tunables].join(':') },
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
      [process.execPath, ...plan.nodeFlags, ...process.execArgv, script, ...process.argv.slice(2)],
      plan.env,
    );
  } catch (error) {
    // The server runs untuned rather than not at all.
    process.stderr.write(
      `warning: could not re-execute with the memory settings (${error instanceof Error ? error.message : String(error)}); running without them.\n`,
    );
  }
}
