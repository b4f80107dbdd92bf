/** sammy-pacing-hlsjs: Sammy for hls.js (work in progress). */
export {};
