/**
 * What sammy-pacing-dashjs adds to a Vite app with dash.js (the shared measure: ../../bench/bundle-cost.ts).
 *   npm run build -w sammy-pacing-dashjs && npm run bench:plugin
 */
import { LOG_DECISIONS, main, reportBundleCost as report, VIDEO_ELEMENT, type BundleApp } from '../../bench/bundle-cost.js';

const PLAYER = `import { MediaPlayer } from 'dashjs';\n`;
const ATTACH = `import { attach } from 'sammy-pacing-dashjs';\n`;
const CREATE = `${VIDEO_ELEMENT}const player = MediaPlayer().create();\n`;
const PLAY = `player.initialize(video, '/media/default/manifest.mpd', true);\n`;

export const DASHJS_APP: BundleApp = {
  player: 'dash.js',
  adapter: 'sammy-pacing-dashjs',
  folder: 'dashjs',
  apps: {
    alone: `${PLAYER}${CREATE}${PLAY}`,
    sammy: `${PLAYER}${ATTACH}${CREATE}const sammy = attach(player);\n${PLAY}${LOG_DECISIONS}`,
    paceOnly: `${PLAYER}${ATTACH}import { paceOnly } from 'sammy-pacing-dashjs/pace-only';\n${CREATE}const sammy = attach(player, { mode: paceOnly });\n${PLAY}${LOG_DECISIONS}`,
  },
};

export const reportBundleCost = () => report(DASHJS_APP);

if (import.meta.url === `file://${process.argv[1]}`) await main(DASHJS_APP);
