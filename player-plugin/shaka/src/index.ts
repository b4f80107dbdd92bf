/** sammy-pacing-shaka: Sammy for shaka-player (work in progress). */
export {};
