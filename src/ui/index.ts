/** The dashboard surface (`baton ui`): what the CLI starts. */
export { startUiServer } from './server.js';
export type { UiServer, UiServerOptions } from './server.js';
export { isLoopback } from './security.js';
