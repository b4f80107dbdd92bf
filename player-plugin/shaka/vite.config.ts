/** The adapter's two builds (../vite.adapter.ts): script-tag global `SammyShaka`; Shaka stays out, the page brings its own. */
import { adapterBuilds } from '../vite.adapter.js';

export default adapterBuilds('SammyShaka', /^shaka-player/);
