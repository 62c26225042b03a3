/** Discord's side of the interactions endpoint, for tests: a real Ed25519 key pair and requests signed with it. */
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";

export interface DiscordKeys {
  /** The public key as Discord shows it: 64 hex characters. */
  readonly publicKeyHex: string;
  readonly privateKey: KeyObject;
}

export function discordKeys(): DiscordKeys {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const jwk = publicKey.export({ format: "jwk" });
  return { publicKeyHex: Buffer.from(jwk.x ?? "", "base64url").toString("hex"), privateKey };
}

export const APPLICATION_ID = "1300000000000000001";

/** The settings that turn Discord on with these keys. */
export function discordEnv(keys: DiscordKeys): Record<string, string> {
  return { DISCORD_APPLICATION_ID: APPLICATION_ID, DISCORD_PUBLIC_KEY: keys.publicKeyHex };
}

/** Headers Discord sends with `body`: the timestamp (Unix seconds) and the Ed25519 signature over timestamp + body. */
export function signatureHeaders(keys: DiscordKeys, body: string, timestampSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  const timestamp = String(timestampSeconds);
  const signature = sign(null, Buffer.from(timestamp + body), keys.privateKey).toString("hex");
  return { "content-type": "application/json", "x-signature-ed25519": signature, "x-signature-timestamp": timestamp };
}

/** A slash command as Discord sends it. */
export function commandInteraction(name: string, options: { name: string; value: string }[] = [], locale = "en-US"): Record<string, unknown> {
  return {
    type: 2,
    id: "1311111111111111111",
    application_id: APPLICATION_ID,
    token: "interaction-token",
    version: 1,
    locale,
    data: { id: "1322222222222222222", name, type: 1, options: options.map((o) => ({ ...o, type: 3 })) },
  };
}

export function autocompleteInteraction(command: string, typed: string, locale = "en-US"): Record<string, unknown> {
  return { ...commandInteraction(command, [], locale), type: 4, data: { id: "1322222222222222222", name: command, type: 1, options: [{ name: "region", type: 3, value: typed, focused: true }] } };
}

export function buttonInteraction(customId: string, locale = "en-US"): Record<string, unknown> {
  return { type: 3, id: "1333333333333333333", application_id: APPLICATION_ID, token: "interaction-token", version: 1, locale, data: { custom_id: customId, component_type: 2 } };
}
