/**
 * The CLI's side of the control socket: who may write the database, and how
 * a change reaches the hub that serves it.
 */
import { lstatSync, statSync } from "node:fs";
import { acquireServerLock, ServerLockHeld } from "../db/open.ts";
import { CommandError } from "./command.ts";
import { controlSocketPath } from "../control/protocol.ts";

/** Errors that mean the request never reached a listening hub, so sending it again cannot apply it twice. */
const NOT_LISTENING = new Set(["ENOENT", "ECONNREFUSED", "FailedToOpenSocket", "ConnectionRefused"]);

/** How long a command waits for a hub that holds the lock but is still starting (migrating) to listen on its socket. */
const STARTING_HUB_WAIT_MS = 15_000;

/** The hub serving a database: its socket, and the user who owns the database file, whom that socket must belong to (or root). */
export interface HubWriter {
  readonly kind: "hub";
  readonly socket: string;
  readonly owner: number;
}

/**
 * Who writes the database: the hub serving it, reached over its socket; or,
 * with none serving, this process, which holds the server lock until
 * `release` so that no hub starts writing beside it.
 */
export type Writer = HubWriter | { readonly kind: "file"; release(): void };

export function writerFor(dbPath: string): Writer {
  try {
    const lock = acquireServerLock(dbPath);
    return { kind: "file", release: () => lock.release() };
  } catch (error) {
    if (error instanceof ServerLockHeld) return { kind: "hub", socket: controlSocketPath(dbPath), owner: statSync(dbPath).uid };
    throw error;
  }
}

/**
 * Why the path is not the serving hub's socket, or null when it may be used
 * (or is not there yet: a starting hub has still to make it). Anyone who can
 * write the database's folder could put a listener there to catch passwords,
 * so only a socket itself (a symlink is not followed) owned by the
 * database's owner or by root is trusted.
 */
function untrustedSocket(hub: HubWriter): string | null {
  let found;
  try {
    found = lstatSync(hub.socket);
  } catch {
    return null;
  }
  if (found.isSymbolicLink()) return "it is a symbolic link";
  if (!found.isSocket()) return "it is not a socket";
  if (found.uid !== hub.owner && found.uid !== 0) return `it is owned by user ${found.uid}, not by the database's owner (user ${hub.owner}) or root`;
  return null;
}

function problemDetail(text: string, status: number): string {
  try {
    const body: unknown = JSON.parse(text);
    if (body !== null && typeof body === "object" && "detail" in body && typeof body.detail === "string") return body.detail;
  } catch {
    // not a problem detail: the status says what there is to say
  }
  return `the hub answered ${status}`;
}

/**
 * Sends one request to the serving hub and returns its answer: a change
 * with a body, a read without; a refusal becomes the command's one-line error.
 */
export async function sendToHub<T>(hub: HubWriter, route: string, body?: object): Promise<T> {
  const { socket } = hub;
  const deadline = Date.now() + STARTING_HUB_WAIT_MS;
  for (;;) {
    const untrusted = untrustedSocket(hub);
    if (untrusted !== null) {
      throw new CommandError(`a hub is serving this database, but ${socket} is not to be trusted: ${untrusted}; nothing was sent. Remove it and restart the hub, which makes its socket again`);
    }
    let response: Response;
    try {
      response = await fetch(
        `http://hub${route}`,
        body === undefined ? { unix: socket } : { unix: socket, method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      );
    } catch (error) {
      const code = error instanceof Error && "code" in error ? String(error.code) : "";
      if (NOT_LISTENING.has(code) && Date.now() < deadline) {
        await Bun.sleep(200);
        continue;
      }
      throw new CommandError(
        `a hub is serving this database but does not answer on ${socket} (${error instanceof Error ? error.message : String(error)}); check that it runs as this user, or stop it and try again`,
      );
    }
    const text = await response.text();
    if (!response.ok) throw new CommandError(problemDetail(text, response.status));
    return JSON.parse(text) as T;
  }
}
