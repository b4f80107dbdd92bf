/**
 * The first-response client run in the client's network namespace (first-response.ts starts it with
 * `ip netns exec`): argv[2] is `{ url, runs }` as JSON; sends back `{ samples }` or `{ error }`, then exits.
 */
import { measureFirstResponses } from './first-response.js';

const { url, runs } = JSON.parse(process.argv[2] ?? '{}') as { url?: string; runs?: number };
if (!url || !process.send) throw new Error('usage: spawned by first-response.ts with { url, runs } and an IPC channel');
const send = process.send.bind(process);
try {
  send({ samples: await measureFirstResponses(url, runs) }, () => process.exit(0));
} catch (err) {
  send({ error: (err as Error).message }, () => process.exit(1));
}
