// Which port `npm start` gives the standalone app: PORT when set, else 3000 or the next free one.
import { createServer } from 'node:net';

/** The port the CLI and the docs assume when none is named. */
export const DEFAULT_PORT = 3000;
/** How many ports after the default the quick start tries before asking the system for one. */
const TRIES = 10;

/** Whether the app could listen on `port` as it does (all IPv4 interfaces, like runApp). */
export function portFree(port) {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '0.0.0.0', () => srv.close(() => resolve(true)));
  });
}

/** A port the system has free right now (0 = any). */
function anyFreePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '0.0.0.0', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * `{ port }` to start on, with `note` when the default was taken and another was picked; or
 * `{ error }`, one line naming PORT, when the port the user set is taken.
 */
export async function choosePort(envPort) {
  if (envPort !== undefined && envPort !== '') {
    const port = Number(envPort);
    // Not a port at all: the app's config check says what is wrong with it (exit 2).
    if (!Number.isInteger(port) || port < 1 || port > 65535) return { port: envPort };
    if (await portFree(port)) return { port: String(port) };
    const other = await nextFree(port + 1);
    return {
      error: `PORT=${port} is taken by another process: stop it, or start on a free port: PORT=${other} npm start`,
    };
  }
  if (await portFree(DEFAULT_PORT)) return { port: String(DEFAULT_PORT) };
  const port = await nextFree(DEFAULT_PORT + 1);
  return {
    port: String(port),
    note: `port ${DEFAULT_PORT} is taken by another process: using PORT=${port} (set PORT to choose)`,
  };
}

async function nextFree(from) {
  for (let p = from; p < from + TRIES && p <= 65535; p++) if (await portFree(p)) return p;
  return anyFreePort();
}
