/**
 * Where an operator adds the application to a server, and where Discord
 * posts: small enough for the admin API to use without loading the Discord
 * libraries (the types below are checked, not loaded).
 */
import type { OAuth2Scopes } from "discord-api-types/v10";

/** The commands' scope only: no bot user joins, no permission is asked. */
const SCOPE = "applications.commands" satisfies `${OAuth2Scopes.ApplicationsCommands}`;

export function inviteUrl(applicationId: string): string {
  return `https://discord.com/oauth2/authorize?client_id=${encodeURIComponent(applicationId)}&scope=${SCOPE}`;
}

/** The path Discord posts interactions to; the operator gives ORIGIN + this as the Interactions Endpoint URL. */
export const INTERACTIONS_PATH = "/api/v1/discord/interactions";
