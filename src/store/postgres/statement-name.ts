import { pgCrypto } from './pool.js';

const names = new Map<string, string>();

/**
 * A stable name for a prepared statement: different texts (schemas) get different names, so
 * the server parses and plans each text once per connection.
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `baton_${pgCrypto().createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
}
