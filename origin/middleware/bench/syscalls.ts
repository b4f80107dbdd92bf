/**
 * Syscalls per second of the processes under test (`--syscalls`), counted by the kernel's tracepoints through
 * `perf stat` (counting mode: each syscall bumps a counter, no sample or trace record is written) over a window while
 * the responses are under way. Besides the total, the calls the pacing adds or that carry the bytes: getsockopt
 * (TCP_INFO reads), setsockopt (pace, congestion control), write/writev, read.
 */
import { spawn } from 'node:child_process';

const EVENTS = {
  total: 'raw_syscalls:sys_enter',
  getsockopt: 'syscalls:sys_enter_getsockopt',
  setsockopt: 'syscalls:sys_enter_setsockopt',
  write: 'syscalls:sys_enter_write',
  writev: 'syscalls:sys_enter_writev',
  read: 'syscalls:sys_enter_read',
} as const;

export type SyscallRates = Record<keyof typeof EVENTS, number>;

/** Per-second counts over `seconds`, or undefined (with why on stderr) where perf cannot count them (not root, no perf). */
export function countSyscalls(pids: readonly number[], seconds: number): Promise<SyscallRates | undefined> {
  return new Promise((resolve) => {
    const perf = spawn(
      'perf',
      ['stat', '-x', ',', '-e', Object.values(EVENTS).join(','), '-p', pids.join(','), '--', 'sleep', String(seconds)],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let text = '';
    perf.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
    perf.on('error', (err) => {
      console.error(`  syscalls not counted: ${err.message} (perf: apt-get install linux-perf)`);
      resolve(undefined);
    });
    perf.on('close', (code) => {
      const counts = new Map<string, number>();
      for (const line of text.split('\n')) {
        const [count, , event] = line.split(',');
        if (event && count && /^\d+$/.test(count)) counts.set(event, Number(count));
      }
      if (code !== 0 || !counts.has(EVENTS.total)) {
        console.error(`  syscalls not counted (perf exit ${code}): ${text.trim().split('\n').slice(-2).join(' ')}`);
        resolve(undefined);
        return;
      }
      const rate = (event: string) => (counts.get(event) ?? NaN) / seconds;
      resolve(Object.fromEntries(Object.entries(EVENTS).map(([k, e]) => [k, rate(e)])) as SyscallRates);
    });
  });
}
