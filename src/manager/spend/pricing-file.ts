import fs from 'node:fs';
import { BatonError } from '../../domain/errors.js';
import { BUILTIN_PRICING, applyPricingOverride } from '../../domain/spend/pricing.js';
import type { PricingTable } from '../../domain/spend/pricing.js';

/** Name of the pricing override file in a file store's `.baton/` folder. */
export const PRICING_FILE_NAME = 'pricing.json';

/** Largest pricing file read. */
const MAX_PRICING_BYTES = 1024 * 1024;

/**
 * The pricing table in effect: the built-in one, with the rows of `file` over it when that
 * file exists. Only reads: a malformed file is a `BAD_INPUT` naming it, and left as it is.
 */
export function loadPricing(file: string | null): PricingTable {
  if (!file) return { ...BUILTIN_PRICING };
  let text: string;
  try {
    const st = fs.statSync(file);
    if (st.size > MAX_PRICING_BYTES) {
      throw new BatonError(
        'BAD_INPUT',
        `The pricing file ${file} is ${st.size} bytes; at most ${MAX_PRICING_BYTES} are read.`,
        { hint: 'Keep only the models you use in it.', details: { file } },
      );
    }
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ...BUILTIN_PRICING };
    if (e instanceof BatonError) throw e;
    throw new BatonError(
      'BAD_INPUT',
      `The pricing file ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`,
      {
        hint: 'Make it readable, or remove it to use the built-in prices.',
        details: { file },
        cause: e,
      },
    );
  }
  return applyPricingOverride(text, file);
}
