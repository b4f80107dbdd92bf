/**
 * What sammy-pacing-hlsjs adds to a Vite app with hls.js (the shared measure: ../../bench/bundle-cost.ts).
 * hls.js's own copy of cml-cmcd is bundled inside hls.js, so the app pays for the one the adapter
 * imports (its key tables) separately. The app without Sammy enables hls.js's CMCD too.
 *   npm run build -w sammy-pacing-hlsjs && npm run bench:bundle -w sammy-pacing-hlsjs
 */
import { LOG_DECISIONS, main, VIDEO_ELEMENT, type BundleApp } from '../../bench/bundle-cost.js';

const PLAYER = `import Hls from 'hls.js';\n`;
const ATTACH = `import { attach, sammyConfig } from 'sammy-pacing-hlsjs';\n`;
const PLAY = `hls.loadSource('/media/default/master.m3u8');\nhls.attachMedia(video);\n`;

export const HLSJS_APP: BundleApp = {
  player: 'hls.js',
  adapter: 'sammy-pacing-hlsjs',
  folder: 'hlsjs',
  apps: {
    alone: `${PLAYER}${VIDEO_ELEMENT}const hls = new Hls({ cmcd: {} });\n${PLAY}`,
    sammy: `${PLAYER}${ATTACH}${VIDEO_ELEMENT}const hls = new Hls(sammyConfig());\nconst sammy = attach(hls);\n${LOG_DECISIONS}${PLAY}`,
    paceOnly: `${PLAYER}${ATTACH}import { paceOnly } from 'sammy-pacing-hlsjs/pace-only';\n${VIDEO_ELEMENT}const hls = new Hls(sammyConfig());\nconst sammy = attach(hls, { mode: paceOnly });\n${LOG_DECISIONS}${PLAY}`,
  },
};

if (import.meta.url === `file://${process.argv[1]}`) await main(HLSJS_APP);
