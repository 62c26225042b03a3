/**
 * Runtime settings: requireAuth, enableApiKeys and mfaEnforcedRoles live in
 * the database so an admin can change them. They are seeded from the
 * configuration on first boot; a value the operator set explicitly wins at
 * every boot and is locked against changes through the API.
 */
import type { Config } from "./config/load.ts";
import { isRole, type Role } from "./config/options.ts";
import type { HubDb } from "./db/open.ts";

export interface RuntimeValues {
  readonly requireAuth: boolean;
  readonly enableApiKeys: boolean;
  readonly mfaEnforcedRoles: readonly Role[];
}

export type RuntimeKey = keyof RuntimeValues;
export const RUNTIME_KEYS: readonly RuntimeKey[] = ["requireAuth", "enableApiKeys", "mfaEnforcedRoles"];

/** The variable an operator sets to lock each runtime setting. */
export const RUNTIME_VARIABLES: Readonly<Record<RuntimeKey, string>> = {
  requireAuth: "REQUIRE_AUTH",
  enableApiKeys: "ENABLE_API_KEYS",
  mfaEnforcedRoles: "MFA_ENFORCED_ROLES",
};

const POLICY_CHOSEN = "mfaPolicyChosen";

export class RuntimeSettings {
  private values: RuntimeValues;
  private policyChosen = false;
  private readonly readAll;
  private readonly write;

  constructor(
    private readonly db: HubDb,
    private readonly config: Config,
    private readonly now: () => number,
  ) {
    this.readAll = db.sqlite.query<{ key: string; value: string }, []>("SELECT key, value FROM settings");
    this.write = db.sqlite.query<unknown, [string, string, number]>(
      "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    );
    this.values = { requireAuth: config.requireAuth, enableApiKeys: config.enableApiKeys, mfaEnforcedRoles: config.mfaEnforcedRoles };
    this.seed();
    this.reload();
  }

  private seed(): void {
    const stored = new Set(this.readAll.all().map((r) => r.key));
    this.db.sqlite.transaction(() => {
      for (const key of RUNTIME_KEYS) {
        if (this.config.explicit.has(key) || !stored.has(key)) this.write.run(key, JSON.stringify(this.config[key]), this.now());
      }
    })();
  }

  reload(): void {
    const rows = new Map(this.readAll.all().map((r) => [r.key, JSON.parse(r.value) as unknown]));
    const requireAuth = rows.get("requireAuth");
    const enableApiKeys = rows.get("enableApiKeys");
    const roles = rows.get("mfaEnforcedRoles");
    this.values = {
      requireAuth: typeof requireAuth === "boolean" ? requireAuth : this.config.requireAuth,
      enableApiKeys: typeof enableApiKeys === "boolean" ? enableApiKeys : this.config.enableApiKeys,
      mfaEnforcedRoles: Array.isArray(roles) ? roles.filter(isRole) : this.config.mfaEnforcedRoles,
    };
    this.policyChosen = rows.get(POLICY_CHOSEN) === true;
  }

  get(): RuntimeValues {
    return this.values;
  }

  locked(): RuntimeKey[] {
    return RUNTIME_KEYS.filter((key) => this.config.explicit.has(key));
  }

  /** Whether the MFA policy has been chosen, by an admin or by the operator's explicit setting. */
  mfaPolicyChosen(): boolean {
    return this.policyChosen || this.config.explicit.has("mfaEnforcedRoles");
  }

  update(patch: Partial<RuntimeValues>, options: { policyChosen?: boolean } = {}): RuntimeValues {
    this.db.sqlite.transaction(() => {
      for (const key of RUNTIME_KEYS) {
        if (patch[key] !== undefined) this.write.run(key, JSON.stringify(patch[key]), this.now());
      }
      if (options.policyChosen) this.write.run(POLICY_CHOSEN, "true", this.now());
    })();
    this.reload();
    return this.values;
  }
}

/**
 * Records the MFA policy as chosen in a database no hub serves yet: the
 * demo's, whose admin signs in on a password alone and is sent to the console,
 * not to a setup step asking for the choice again.
 */
export function markMfaPolicyChosen(db: HubDb, at: number): void {
  db.sqlite
    .query<unknown, [string, string, number]>("INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
    .run(POLICY_CHOSEN, "true", at);
}
