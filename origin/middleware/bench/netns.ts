/**
 * Two network namespaces joined by a veth pair with a 1500-byte MTU, for measuring on an Ethernet-sized link
 * instead of loopback's 64 KB one. Root only. Everything it makes is removed by `remove()`, and also on exit or
 * a signal if the benchmark fails before that (deleting a namespace deletes its end of the veth pair).
 */
import { execFileSync } from 'node:child_process';

export interface VethPair {
  serverNs: string;
  clientNs: string;
  serverAddress: string;
  clientAddress: string;
  mtu: number;
  /** Writes /proc/sys/<key with dots as slashes> inside a namespace (per-namespace sysctls such as net.ipv4.*). */
  setSysctl(ns: string, key: string, value: string | number): void;
  readSysctl(ns: string, key: string): string;
  remove(): void;
}

/** A private /30 that nothing else on the host uses: the two namespaces only see each other. */
const SUBNET = '10.213.87';
const MTU = 1500;

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function inNs(ns: string, ...cmd: string[]): string {
  return execFileSync('ip', ['netns', 'exec', ns, ...cmd], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why namespaces cannot be made here, or undefined if they can. */
export function vethUnavailableReason(): string | undefined {
  if (process.platform !== 'linux') return `needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'needs root';
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
  } catch {
    return 'needs iproute2 (`ip`)';
  }
  return undefined;
}

export function createVethPair(): VethPair {
  const tag = `${process.pid}`;
  const serverNs = `sammy-bench-srv-${tag}`;
  const clientNs = `sammy-bench-cli-${tag}`;
  // Interface names are at most 15 characters.
  const serverIf = `sbs${tag}`.slice(0, 15);
  const clientIf = `sbc${tag}`.slice(0, 15);
  const serverAddress = `${SUBNET}.1`;
  const clientAddress = `${SUBNET}.2`;

  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    for (const ns of [serverNs, clientNs]) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // Not created (a failure part-way) or already gone.
      }
    }
    process.off('exit', remove);
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.off(sig, onSignal);
  };
  const onSignal = (sig: NodeJS.Signals) => {
    remove();
    process.kill(process.pid, sig);
  };
  process.once('exit', remove);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, onSignal);

  try {
    ip('netns', 'add', serverNs);
    ip('netns', 'add', clientNs);
    ip(
      'link',
      'add',
      serverIf,
      'mtu',
      String(MTU),
      'netns',
      serverNs,
      'type',
      'veth',
      'peer',
      'name',
      clientIf,
      'mtu',
      String(MTU),
      'netns',
      clientNs,
    );
    for (const [ns, dev, addr] of [
      [serverNs, serverIf, serverAddress],
      [clientNs, clientIf, clientAddress],
    ] as const) {
      ip('-n', ns, 'addr', 'add', `${addr}/30`, 'dev', dev);
      ip('-n', ns, 'link', 'set', dev, 'up');
      ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
  } catch (err) {
    remove();
    throw new Error(`cannot make the veth pair: ${(err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message}`);
  }

  const sysctlPath = (key: string) => `/proc/sys/${key.replaceAll('.', '/')}`;
  return {
    serverNs,
    clientNs,
    serverAddress,
    clientAddress,
    mtu: MTU,
    setSysctl: (ns, key, value) => void inNs(ns, 'sh', '-c', 'echo "$1" > "$2"', 'sh', String(value), sysctlPath(key)),
    readSysctl: (ns, key) => inNs(ns, 'cat', sysctlPath(key)).trim(),
    remove,
  };
}
