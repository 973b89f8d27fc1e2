/**
 * The long-running commands (`watch`, `log --follow`, `otel follow`, `ui`) run until Ctrl+C or
 * SIGTERM, then stop cleanly with exit 0.
 */

/**
 * Starts listening for SIGINT and SIGTERM. `ended` resolves on the first of them; `stop`
 * removes the listeners (and resolves `ended`), so a command that ends for another reason
 * leaves no handler behind in the process.
 */
export function untilInterrupted(): { ended: Promise<void>; stop: () => void } {
  let stop = (): void => undefined;
  const ended = new Promise<void>((resolve) => {
    stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { ended, stop };
}
