/**
 * The local control socket (SPEC §16.2): how the CLI's writing commands hand
 * their change to the hub serving a database instead of opening the file for
 * writing. HTTP with JSON bodies over a Unix socket beside the database,
 * `<db>.sock`, owner-only; answers that are not 2xx carry a problem detail.
 */
import type { ImportOutcome } from "../field/import.ts";

export function controlSocketPath(dbPath: string): string {
  return `${dbPath}.sock`;
}

/** POST routes take a JSON body; GET routes only read. */
export const CONTROL_ROUTES = {
  listAgents: "/v1/agents/list",
  schema: "/v1/schema",
  createAgent: "/v1/agents",
  createUser: "/v1/users",
  resetPassword: "/v1/users/reset-password",
  simulatorAgents: "/v1/simulator-agents",
  importField: "/v1/import-field",
  rotatePushKey: "/v1/push/rotate-key",
} as const;

export interface ListedAgent {
  readonly id: number;
  readonly enabled: boolean;
  readonly platform: string;
  readonly region: string;
  readonly provider: string;
  readonly source: string;
  readonly label: string | null;
  readonly readings: number;
  readonly lastReadingAt: number | null;
}

export interface AgentList {
  readonly agents: readonly ListedAgent[];
}

/** The migrations the served database has applied, by version. */
export interface SchemaState {
  readonly versions: readonly number[];
}

export interface CreateAgentRequest {
  readonly region: string;
  readonly provider: string;
  readonly label: string | null;
}

export interface CreatedAgent {
  readonly agent: { readonly id: number; readonly provider: string; readonly platform: string; readonly region: string; readonly label: string | null };
  readonly token: string;
}

export interface CreateUserRequest {
  readonly username: string;
  readonly role: "admin" | "user";
  readonly password: string;
}

export interface ResetPasswordRequest {
  readonly username: string;
  readonly password: string;
}

export interface ChangedUser {
  readonly user: { readonly id: number; readonly username: string; readonly role: string };
}

export interface RotatedPushKey {
  readonly dropped: number;
}

export interface SimulatorAgentsRequest {
  readonly count: number;
}

export interface SimulatorAgents {
  readonly agents: readonly { readonly id: number; readonly token: string; readonly platform: string; readonly region: string }[];
}

/** Only the path of the field's file travels, never its content or a secret: the hub opens it itself. */
export interface ImportFieldRequest {
  readonly from: string;
  readonly dryRun: boolean;
}

/** With the counts, the progress the hub noted, in order, for the command to print as it prints its own: one JSON answer keeps the protocol as simple as every other route's. */
export interface ImportedField extends ImportOutcome {
  readonly source: string;
  readonly progress: readonly (readonly [done: number, total: number])[];
}
