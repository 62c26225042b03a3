/**
 * Schemas of the fields people type (names, passwords, e-mail, labels), with
 * the rules the hub enforces stated in them, so the description tells a
 * client what is valid before it asks.
 */
import { platformOf, PROVIDERS, type Catalogue } from "../domain/catalogue.ts";
import { listOr } from "../domain/lists.ts";
import { EMAIL_PATTERN, TEXT_LIMITS } from "../domain/text-limits.ts";
import { PASSWORD_LENGTH, USERNAME_PATTERN } from "../db/users.ts";
import { text } from "./text.ts";

export const UsernameSchema = text({
  minLength: 1,
  maxLength: 64,
  pattern: USERNAME_PATTERN.source,
  rule: "1 to 64 letters, digits, '.', '_' or '-'",
  description: "1–64 letters, digits, '.', '_' or '-'; unique ignoring case",
  examples: ["alice"],
});

/** A username as typed at sign-in: any string, since a wrong one is simply refused. */
export const LoginUsernameSchema = text({ maxLength: 256, description: "The username" });

export const PasswordSchema = text({
  minLength: PASSWORD_LENGTH.min,
  maxLength: PASSWORD_LENGTH.max,
  description: `${PASSWORD_LENGTH.min}–${PASSWORD_LENGTH.max} characters`,
});

/** A password as typed to prove who one is: any string, since a wrong one is simply refused. */
export const CurrentPasswordSchema = text({ maxLength: 4096, description: "The password" });

export const EmailSchema = text({
  maxLength: TEXT_LIMITS.email,
  pattern: EMAIL_PATTERN.source,
  format: "email",
  rule: `an e-mail address of at most ${TEXT_LIMITS.email} characters`,
  description: "An e-mail address",
  examples: ["alice@example.org"],
});

export const NameSchema = text({ maxLength: TEXT_LIMITS.name, description: `A display name of at most ${TEXT_LIMITS.name} characters` });

export const LabelSchema = text({ maxLength: TEXT_LIMITS.label, description: `A label of at most ${TEXT_LIMITS.label} characters` });

const anyCase = (word: string) => [...word].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join("");

/** A provider, in any case; it decides the platform. */
export const ProviderSchema = text({
  pattern: `^(?:${PROVIDERS.map(anyCase).join("|")})$`,
  rule: `${listOr(PROVIDERS)} (in any case)`,
  description: `${listOr(PROVIDERS)}, in any case (decides the platform: ${listOr(PROVIDERS.map(platformOf))})`,
  examples: [PROVIDERS[0]],
});

/** A region id of this hub's catalogue (the built-in regions and the operator's). */
export function regionSchema(catalogue: Catalogue, description = "A region id of the catalogue") {
  return text({ enum: catalogue.regions.map((r) => r.id), description, examples: ["eu-west-1"] });
}
