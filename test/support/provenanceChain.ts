/** The provenance chain maker of scripts/ (plain CommonJS, so that it runs before node_modules exist), typed for tests. */
export interface ChainFiles {
  chainFile: string;
  keyFile: string;
  rootFile: string;
}

export const { createChain, provenanceEnv, devProvenanceEnv } = require('../../scripts/lib/provenanceChain') as {
  createChain(dir: string, options?: { name?: string; algorithm?: 'es256' | 'ed25519' }): ChainFiles;
  provenanceEnv(files: ChainFiles): Record<string, string>;
  devProvenanceEnv(dataDir: string, env?: NodeJS.ProcessEnv): Record<string, string>;
};
