/**
 * A file of the project (package.json, prisma/, public/, build/), by its path from the
 * project's root. This module sits one level under the root wherever it runs: in src/
 * (tsx, the tests), in build/ (tsc's modules), and inlined in build/'s bundles (npm
 * start), so one relative URL reaches the root from each; a module deeper down would not
 * reach it from a bundle.
 */
export const projectFile = (path: string): URL => new URL(`../${path}`, import.meta.url);
