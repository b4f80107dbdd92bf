/**
 * Kernel memory of TCP sockets, two ways: the host's total (/proc/net/sockstat `TCP: mem`, pages, counted for
 * every TCP socket of every namespace) and the server's own sockets (`ss -tm` summed over the sockets on the
 * server's port: queued send bytes `w` plus received bytes `r`), with their states (orphans included: a socket
 * closed with data still queued lingers in the kernel without a process).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const PAGE_BYTES = 4096;

export interface SocketMemory {
  /** All TCP sockets on the host, bytes (sockstat mem × page size). */
  hostTcpBytes: number;
  /** TCP sockets without a process (sockstat `orphan`). */
  hostOrphans: number;
  /** Sockets on the server's port (LISTEN excluded), by state. */
  serverSockets: Record<string, number>;
  /** Their queued send + receive memory, bytes. */
  serverBytes: number;
}

function pageBytes(): number {
  try {
    return Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim()) || PAGE_BYTES;
  } catch {
    return PAGE_BYTES;
  }
}
const PAGE = pageBytes();

/** A field of /proc/net/sockstat's `TCP:` line (mem is in pages); NaN when absent. */
function sockstatTcp(name: string): number {
  const tcp = readFileSync('/proc/net/sockstat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('TCP:'));
  return Number(tcp?.match(new RegExp(`\\b${name} (\\d+)`))?.[1] ?? NaN);
}

/** Kernel memory of every TCP socket on the host, bytes (sockstat `TCP: mem`): cheap enough to sample often. */
export function hostTcpBytes(): number {
  return sockstatTcp('mem') * PAGE;
}

export function socketMemory(serverPort: number): SocketMemory {
  const serverSockets: Record<string, number> = {};
  let serverBytes = 0;
  try {
    const out = execFileSync('ss', ['-tanmH', 'state', 'all', `( sport = :${serverPort} )`], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    // Each socket: a line starting with its state, then (indented, or on the same line) its skmem:(...).
    for (const block of out.split(/\n(?=\S)/)) {
      const state = block.split(/\s+/)[0];
      if (!state || state === 'LISTEN') continue;
      serverSockets[state] = (serverSockets[state] ?? 0) + 1;
      const mem = block.match(/skmem:\(r(\d+),rb\d+,t\d+,tb\d+,f\d+,w(\d+)/);
      if (mem) serverBytes += Number(mem[1]) + Number(mem[2]);
    }
  } catch {
    // ss missing: the host figure still stands.
  }
  return { hostTcpBytes: hostTcpBytes(), hostOrphans: sockstatTcp('orphan'), serverSockets, serverBytes };
}

export function formatSocketMemory(m: SocketMemory): string {
  const states = Object.entries(m.serverSockets)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  return `server sockets ${states || 'none'}: ${(m.serverBytes / 1e6).toFixed(1)} MB queued; host TCP memory ${(m.hostTcpBytes / 1e6).toFixed(1)} MB, ${m.hostOrphans} orphans`;
}
