/**
 * The web page's files: built by scripts/build.mjs into `dist/ui/` (the page's code and
 * styles, bundled with its libraries: nothing is fetched from elsewhere at run time) and
 * served from there, read once. The HTML page is written here: it only loads them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatonError } from '../manager/index.js';

/** One file served as is. */
export interface Asset {
  type: string;
  body: Buffer;
}

const FILES: Readonly<Record<string, string>> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/**
 * Where the built page lives: `ui/` beside the CLI bundle (dist/cli.cjs), or, when baton runs
 * from its sources (tests), the repository's `dist/ui/`.
 */
function assetDirs(): string[] {
  // In the CLI bundle import.meta.url is the bundle's own path (scripts/build.mjs defines it so).
  const self = import.meta.url;
  const here = path.dirname(self.startsWith('file:') ? fileURLToPath(self) : self);
  return [path.join(here, 'ui'), path.resolve(here, '../../dist/ui')];
}

/** Reads the page's files once; `BAD_INPUT` naming the fix when they were never built. */
export function loadAssets(dir?: string): Map<string, Asset> {
  const dirs = dir ? [dir] : assetDirs();
  const found = dirs.find((d) => fs.existsSync(path.join(d, 'app.js')));
  if (!found) {
    throw new BatonError('BAD_INPUT', `The dashboard's web page is not built (looked in ${dirs.join(', ')}).`, {
      hint: 'Run `npm run build` in the baton checkout.',
    });
  }
  const out = new Map<string, Asset>();
  for (const [name, type] of Object.entries(FILES))
    out.set(`/assets/${name}`, { type, body: fs.readFileSync(path.join(found, name)) });
  out.set('/', { type: 'text/html; charset=utf-8', body: Buffer.from(PAGE) });
  return out;
}

/** The page: no inline script or style (the CSP forbids both); the app draws everything. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>baton</title>
<link rel="stylesheet" href="/assets/app.css">
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<noscript>The baton dashboard needs JavaScript; the same data is at /api (see docs/ui.md).</noscript>
<div id="app"></div>
</body>
</html>
`;
