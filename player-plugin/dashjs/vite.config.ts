/** The adapter's two builds (../vite.adapter.ts): script-tag global `Sammy`; dash.js stays out, the page brings its own. */
import { adapterBuilds } from '../vite.adapter.js';

export default adapterBuilds('Sammy', /^dashjs/);
