import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Parses YAML with the `yaml` package, loaded on first use so that commands without a YAML
 * file never pay for it. A plain require, not `import()`: the CLI bundle runs through V8's
 * code cache, where a dynamic import of a package has no loader to resolve it.
 */
export function parseYaml(text: string): unknown {
  return (require('yaml') as typeof import('yaml')).parse(text);
}
