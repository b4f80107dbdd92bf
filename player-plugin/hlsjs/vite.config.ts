/** The adapter's two builds (../vite.adapter.ts): script-tag global `SammyHls`; hls.js stays out, the page brings its own. */
import { adapterBuilds } from '../vite.adapter.js';

export default adapterBuilds('SammyHls', /^hls\.js/);
