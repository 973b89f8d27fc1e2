import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type YamlModule = typeof import('yaml');

/**
 * The `yaml` package, loaded on first use: format code is part of the CLI bundle, and a
 * command that reads no foreign file must not pay for it (see src/manager/plan-file.ts for why this
 * is a require and not an `import()`).
 */
export function yamlModule(): YamlModule {
  return require('yaml') as YamlModule;
}
