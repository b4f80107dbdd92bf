/**
 * What sammy-pacing-shaka adds to a Vite app with Shaka Player 5 (the shared measure: ../../bench/bundle-cost.ts).
 *   npm run build -w sammy-pacing-shaka && npm run bench -w sammy-pacing-shaka
 */
import { LOG_DECISIONS, main, VIDEO_ELEMENT, type BundleApp } from '../../bench/bundle-cost.js';

const PLAYER = `import shaka from 'shaka-player';\n`;
const ATTACH = `import { attach } from 'sammy-pacing-shaka';\n`;
const CREATE = `${VIDEO_ELEMENT}const player = new shaka.Player();\nawait player.attach(video);\n`;
// Shaka's load() needs an absolute URL.
const LOAD = `await player.load(new URL('/media/default/manifest.mpd', location.href).href);\n`;

export const SHAKA_APP: BundleApp = {
  player: 'Shaka',
  adapter: 'sammy-pacing-shaka',
  folder: 'shaka',
  apps: {
    alone: `${PLAYER}${CREATE}${LOAD}`,
    sammy: `${PLAYER}${ATTACH}${CREATE}const sammy = attach(player);\n${LOG_DECISIONS}${LOAD}`,
    paceOnly: `${PLAYER}${ATTACH}import { paceOnly } from 'sammy-pacing-shaka/pace-only';\n${CREATE}const sammy = attach(player, { mode: paceOnly });\n${LOG_DECISIONS}${LOAD}`,
  },
};

if (import.meta.url === `file://${process.argv[1]}`) await main(SHAKA_APP);
