// A memory limit per process, enforced the way a Kubernetes container's `limits.memory`
// is: the process runs in its own memory cgroup, so the kernel reclaims and then
// OOM-kills at the limit, and Node sizes its V8 heap from the limit
// (uv_get_constrained_memory) rather than from the machine's memory. A bench that
// starts services under --memory-limit measures what a container of that size does.
//
// Needs a writable cgroup hierarchy (root on cgroup v1, or a delegated v2 subtree).

import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BenchError } from './bench-kit';

export interface MemoryCgroup {
  /** Writing a pid here moves that process into the cgroup (see `wrapCommand`). */
  readonly procsFile: string;
  /** The most memory the cgroup's processes have been charged at once (bytes; page cache included). */
  peakBytes(): number;
  /** Processes the kernel killed at the limit. */
  oomKills(): number;
  /** Removes the cgroup; its processes must have ended. */
  remove(): void;
}

/** Where this process's cgroup lives, per hierarchy. */
function ownCgroup(): { version: 1 | 2; dir: string } {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const v1 = lines.map((l) => /^\d+:memory:(.*)$/.exec(l)).find((m) => m !== null);
  if (v1 && existsSync('/sys/fs/cgroup/memory')) return { version: 1, dir: join('/sys/fs/cgroup/memory', v1[1]) };
  const v2 = lines.map((l) => /^0::(.*)$/.exec(l)).find((m) => m !== null);
  if (v2 && existsSync('/sys/fs/cgroup/cgroup.controllers')) return { version: 2, dir: join('/sys/fs/cgroup', v2[1]) };
  throw new BenchError('--memory-limit needs a memory cgroup hierarchy under /sys/fs/cgroup');
}

const readNumber = (file: string): number => Number(readFileSync(file, 'utf8').trim());

/** The count after `key` in a flat-keyed cgroup file (memory.events, memory.oom_control); 0 when absent. */
const keyed = (file: string, key: string): number => {
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(existsSync(file) ? readFileSync(file, 'utf8') : '');
  return match ? Number(match[1]) : 0;
};

export function createMemoryCgroup(name: string, limitBytes: number): MemoryCgroup {
  const own = ownCgroup();
  const dir = join(own.dir, name);
  try {
    mkdirSync(dir);
    if (own.version === 1) {
      writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limitBytes));
      // As a container has no swap: at the limit, reclaim and then the OOM killer.
      if (existsSync(join(dir, 'memory.memsw.limit_in_bytes'))) writeFileSync(join(dir, 'memory.memsw.limit_in_bytes'), String(limitBytes));
    } else {
      writeFileSync(join(dir, 'memory.max'), String(limitBytes));
      if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
    }
  } catch (error) {
    throw new BenchError(`--memory-limit: cannot create the memory cgroup ${dir}: ${(error as Error).message}`);
  }
  return {
    procsFile: join(dir, 'cgroup.procs'),
    peakBytes: () => (own.version === 1 ? readNumber(join(dir, 'memory.max_usage_in_bytes')) : existsSync(join(dir, 'memory.peak')) ? readNumber(join(dir, 'memory.peak')) : NaN),
    oomKills: () => (own.version === 1 ? keyed(join(dir, 'memory.oom_control'), 'oom_kill') : keyed(join(dir, 'memory.events'), 'oom_kill')),
    remove: () => rmdirSync(dir),
  };
}

/** `command args` started inside `cgroup`: a shell moves itself in, then execs the command (same pid). */
export function wrapCommand(cgroup: MemoryCgroup, command: string, args: readonly string[]): { command: string; args: string[] } {
  return { command: '/bin/sh', args: ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, command, ...args] };
}

/** A process's peak resident set so far (VmHWM, MiB); undefined once it has ended. */
export function peakRssMiB(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}
