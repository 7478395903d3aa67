import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..', '..');

/**
 * A port nobody listens on right now, below the kernel's ephemeral range. A port the
 * kernel hands out (listening on port 0) can be handed out again as the local port of
 * any outgoing connection before the process under test listens on it: a CI run lost a
 * test to EADDRINUSE that way. Below the ephemeral range only another listener can take
 * it, and each candidate is checked by listening on it first.
 */
export async function freePort(): Promise<number> {
  const below = Math.min(firstEphemeralPort(), 32_768);
  const from = Math.max(1024, below - 12_000);
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = from + Math.floor(Math.random() * (below - from));
    if (await canListen(candidate)) return candidate;
  }
  return listenOnAnyPort();
}

/** The first local port the kernel gives outgoing connections (Linux's default where it cannot be read). */
function firstEphemeralPort(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 1024) return low;
  } catch {
    // Not Linux: the default below.
  }
  return 32_768;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function listenOnAnyPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RunningProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Structured log lines (JSON objects) written so far. */
  logLines(): Array<Record<string, unknown>>;
  /** Resolves with the exit code (or the signal name) once the process and its children have ended. */
  readonly exited: Promise<number | string>;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Starts a Herald process the way an operator would (a real OS process), capturing
 * its output. Children are killed when the test process exits, so a failing test
 * leaves nothing behind.
 */
export function startProcess(name: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv): RunningProcess {
  // Its own process group, so a signal reaches `npm` and the node process under it alike.
  const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | string>((resolve) => {
    // 'close' waits for the stdio pipes, which every process of the group holds:
    // `npm start` has ended only when the node process under it has.
    child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const killOnExit = (): void => signalGroup('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));
  return {
    name,
    child,
    output: () => output,
    logLines: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) signalGroup(signal);
      const code = await exited;
      signalGroup('SIGKILL'); // anything the process left behind in its group
      return code;
    },
  };
}

/** Node with the TypeScript register hook, as `npm start` and the Dockerfile run it. */
export function startNodeEntrypoint(name: string, entrypoint: string, env: NodeJS.ProcessEnv): RunningProcess {
  return startProcess(name, process.execPath, ['-r', './tools/register.js', entrypoint], env);
}

/** The environment of this test process without any Herald setting, plus `extra`. */
export function heraldEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('HERALD_') && !name.startsWith('JEST_') && name !== 'NODE_OPTIONS') env[name] = value;
  }
  // Tests poll with a credential until it reaches every service (a 401 every 50 ms); the limits on
  // failed authentications are tested where a test sets them low (auth-failure-limits.int.spec.ts).
  return { ...env, KAFKAJS_NO_PARTITIONER_WARNING: '1', HERALD_AUTH_MAX_FAILURES_PER_ADDRESS: '1000000', HERALD_AUTH_MAX_FAILURES_PER_CREDENTIAL: '1000000', ...extra };
}

export async function fetchJson(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (e.g. /metrics)
  }
  return { status: response.status, body };
}

/** Polls `{url}health/ready` until it answers 200; fails at once if the process dies. */
export async function waitUntilReady(processUnderTest: RunningProcess, baseUrl: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (processUnderTest.child.exitCode !== null || processUnderTest.child.signalCode !== null) {
      throw new Error(`${processUnderTest.name} exited before it was ready:\n${processUnderTest.output().slice(-4000)}`);
    }
    try {
      const { status, body } = await fetchJson(`${baseUrl}health/ready`);
      if (status === 200) return;
      last = `${status} ${JSON.stringify(body)}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${processUnderTest.name} not ready at ${baseUrl} (${last}):\n${processUnderTest.output().slice(-4000)}`);
}
