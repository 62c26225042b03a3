/**
 * Every route declares who may call it with `access: <rule>`. The rule is
 * enforced before the request is validated, and recorded in the route's
 * OpenAPI operation (`x-access` and `security`) so that the description and
 * the route-table test both see it.
 */
import { Elysia } from "elysia";

export const ACCESS_RULES = ["public"] as const;
export type AccessRule = (typeof ACCESS_RULES)[number];

type SecurityRequirement = Record<string, string[]>;

const SECURITY: Readonly<Record<AccessRule, SecurityRequirement[]>> = {
  public: [],
};

export const ACCESS_DESCRIPTIONS: Readonly<Record<AccessRule, string>> = {
  public: "Open to everyone, never behind the read gate.",
};

export function accessControl() {
  return new Elysia({ name: "hub/access" }).macro({
    access: (rule: AccessRule) => ({
      detail: { "x-access": rule, security: SECURITY[rule] },
    }),
  });
}
