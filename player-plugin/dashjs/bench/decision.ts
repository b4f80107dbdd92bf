/**
 * Benchmark: how long one rule decision takes, and what the plugin adds to a real Vite app (bench/
 * bundle-cost.ts; needs `npm run build`). Prints figures;
 * no pass/fail (timings on a shared machine are noisy — compare ratios within one run).
 *   npm run bench:plugin
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { reportBundleCost } from './bundle-cost.js';
import { writeRtp } from 'sammy-pacing-protocol';
import { createSession, DEFAULT_PARAMETERS, decideBitrate, decidePace, harmonicMeanKbps, memoryStore } from 'sammy-pacing-core';

const LADDER = [300, 750, 1500, 3000, 6000];
const SAMPLES = [14_000, 16_500, 15_200, 17_000, 16_100, 15_900];
const URL_WITH_CMCD =
  'http://localhost:8080/media/default/video/3/seg-12.m4s?CMCD=bl%3D21300%2Cbr%3D3000%2Cd%3D4000%2Cmtp%3D25400%2Cot%3Dv%2Csf%3Dd%2Csid%3D%22abc%22%2Cst%3Dv%2Ctb%3D6000';

function medianNs(fn: (i: number) => unknown, iterations = 200_000, batch = 100): number {
  for (let i = 0; i < 20_000; i++) fn(i); // warm up the JIT
  const perBatch: number[] = [];
  for (let b = 0; b < iterations / batch; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn(i);
    perBatch.push(Number(process.hrtime.bigint() - t0) / batch);
  }
  perBatch.sort((a, b) => a - b);
  return perBatch[Math.floor(perBatch.length / 2)]!;
}

const decision = (i: number) => {
  const buffer = i % 31;
  const { bitrateKbps } = decideBitrate({
    phase: 'playing',
    mediaType: 'video',
    bitratesKbps: LADDER,
    bufferLevelSeconds: buffer,
    sessionEstimateKbps: harmonicMeanKbps(SAMPLES),
    initialEstimateKbps: undefined,
    parameters: DEFAULT_PARAMETERS,
  });
  return (
    bitrateKbps +
    (decidePace({
      phase: 'playing',
      bufferLevelSeconds: buffer,
      fullBufferSeconds: 30,
      paceBaseKbps: 6128,
      parameters: DEFAULT_PARAMETERS,
    }) ?? 0)
  );
};
// What a player runs per request: a session's bitrate choice and its decide (the pace above, plus probe and hold).
const session = createSession({ initialHistory: memoryStore(), bufferTargetSeconds: 30 });
session.playback({ type: 'playing' });
const sessionDecision = (i: number) => {
  const buffer = i % 31;
  const choice = session.chooseBitrate({ mediaType: 'video', ladderKbps: LADDER, bufferLevelSeconds: buffer });
  const bitrateKbps = choice?.bitrateKbps ?? LADDER[0]!;
  const decided = session.decide({
    mediaType: 'video',
    bitrateKbps,
    url: 'seg.m4s',
    bufferTargetSeconds: 30,
    tracks: {
      video: { ladderTopKbps: 6000, ladderKbps: LADDER, bufferLevelSeconds: buffer },
      audio: { ladderTopKbps: 128, bufferLevelSeconds: buffer },
    },
  });
  session.addSample(decided, { bytes: 2_000_000, durationMs: 1000 + (i % 7) * 100 });
  return decided.paceRateKbps;
};
const rewrite = (i: number) => writeRtp({ url: URL_WITH_CMCD, headers: {} }, 15_000 + (i % 10) * 100, 'query');

const decisionNs = medianNs(decision);
const sessionNs = medianNs(sessionDecision, 50_000);
const rewriteNs = medianNs(rewrite, 50_000);
console.log('Sammy plugin benchmark');
console.log(`  rule decision (bitrate + pace rate), median : ${(decisionNs / 1000).toFixed(2)} µs`);
console.log(`  session choice + decide + sample, median     : ${(sessionNs / 1000).toFixed(2)} µs`);
console.log(`  CMCD rewrite of one request, median         : ${(rewriteNs / 1000).toFixed(2)} µs`);
console.log(`  ratio rewrite / decision                    : ${(rewriteNs / decisionNs).toFixed(1)}×`);

await reportBundleCost();
const kb = (n: number) => `${(n / 1024).toFixed(2)} KB`;
try {
  const iife = readFileSync(new URL('../dist/sammy.iife.js', import.meta.url));
  console.log(`  dist/sammy.iife.js (script tag, dependencies inside), gzipped: ${kb(gzipSync(iife, { level: 6 }).length)}`);
} catch {
  console.log('  dist/sammy.iife.js not built: run npm run build first');
}
