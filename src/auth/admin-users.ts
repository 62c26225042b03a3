/**
 * Admin management of users. The last enabled admin can never be demoted,
 * disabled or deleted. Disabling or deleting a user ends their sessions at
 * once and their API keys stop working with them. Resetting a user's password
 * also forgets their remembered devices and switches their API keys off:
 * whoever knew the old password may have made keys with it (SPEC §10.1).
 * Each of the three (disabled, deleted, password reset) also ends what was
 * granted through the user's access elsewhere, through `accessEnded` (their
 * push subscriptions, SPEC §16.4).
 */
import { eq } from "drizzle-orm";
import type { Role } from "../config/options.ts";
import { audit, type Actor } from "../db/audit.ts";
import type { HubDb } from "../db/open.ts";
import { users } from "../db/schema.ts";
import { findUserById, findUserByName, insertUser, listUsers, otherEnabledAdmins, toUserBody, type UserBody, type UserRow } from "../db/users.ts";
import { HttpProblem } from "../domain/problem.ts";
import { checkPassword, checkUsername, type Accounts } from "./accounts.ts";
import { hashPassword } from "./passwords.ts";

export interface UserPatch {
  readonly enabled?: boolean;
  readonly role?: Role;
  readonly name?: string | null;
  readonly email?: string | null;
  readonly password?: string;
}

export class UserAdmin {
  constructor(
    private readonly db: HubDb,
    private readonly accounts: Accounts,
    private readonly now: () => number,
    /** Told of a user disabled, deleted or whose password was reset, once it is stored. */
    private readonly accessEnded: (userId: number) => void = () => undefined,
  ) {}

  private get(id: number): UserRow {
    const user = findUserById(this.db.orm, id);
    if (!user) throw new HttpProblem(404, `There is no user ${id}.`);
    return user;
  }

  private body(row: UserRow): UserBody {
    return toUserBody(this.db.orm, row);
  }

  list(): UserBody[] {
    return listUsers(this.db.orm).map((row) => this.body(row));
  }

  async create(actor: Actor, input: { username: string; role: Role; password: string | null; email: string | null; name: string | null }): Promise<UserBody> {
    checkUsername(input.username);
    if (input.password !== null) checkPassword(input.password);
    if (findUserByName(this.db.orm, input.username)) throw new HttpProblem(409, `The username "${input.username}" is taken.`);
    const passwordHash = input.password === null ? null : await hashPassword(input.password);
    const row = this.db.sqlite.transaction(() => {
      if (findUserByName(this.db.orm, input.username)) throw new HttpProblem(409, `The username "${input.username}" is taken.`);
      const created = insertUser(this.db.orm, { username: input.username, role: input.role, passwordHash, email: input.email, name: input.name }, this.now());
      audit(this.db.orm, actor, "user.create", `user:${created.id}`, { username: created.username, role: created.role }, this.now());
      return created;
    })();
    return this.body(row);
  }

  private guardLastAdmin(user: UserRow, what: string): void {
    if (user.role === "admin" && user.enabled && otherEnabledAdmins(this.db.orm, user.id) === 0) {
      throw new HttpProblem(409, `"${user.username}" is the last enabled admin and cannot be ${what}; make another admin first.`);
    }
  }

  async update(actor: Actor, id: number, patch: UserPatch): Promise<UserBody> {
    const user = this.get(id);
    if (patch.password !== undefined) checkPassword(patch.password);
    if (patch.enabled === false) this.guardLastAdmin(user, "disabled");
    if (patch.role !== undefined && patch.role !== "admin") this.guardLastAdmin(user, "demoted");
    const passwordHash = patch.password === undefined ? undefined : await hashPassword(patch.password);
    const changes = {
      ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
      ...(patch.role === undefined ? {} : { role: patch.role }),
      ...(patch.name === undefined ? {} : { name: patch.name }),
      ...(patch.email === undefined ? {} : { email: patch.email }),
      ...(passwordHash === undefined ? {} : { passwordHash }),
    };
    const row = this.db.sqlite.transaction(() => {
      if (patch.enabled === false || patch.role !== undefined) {
        const current = this.get(id);
        if (patch.enabled === false) this.guardLastAdmin(current, "disabled");
        if (patch.role !== undefined && patch.role !== "admin") this.guardLastAdmin(current, "demoted");
      }
      const updated = this.db.orm.update(users).set({ ...changes, updatedAt: this.now() }).where(eq(users.id, id)).returning().get();
      const { password: _secret, ...logged } = patch;
      audit(this.db.orm, actor, "user.update", `user:${id}`, { ...logged, passwordChanged: patch.password !== undefined }, this.now());
      return updated;
    })();
    if (!row) throw new HttpProblem(404, `There is no user ${id}.`);
    if (patch.enabled === false || patch.password !== undefined) this.accounts.sessions.destroyForUser(id);
    if (patch.password !== undefined) {
      this.accounts.devices.forgetAll(id);
      this.accounts.apiKeys.disableAll(id);
    }
    if (patch.enabled === false || patch.password !== undefined) this.accessEnded(id);
    return this.body(row);
  }

  remove(actor: Actor, id: number): void {
    this.db.sqlite.transaction(() => {
      const user = this.get(id);
      this.guardLastAdmin(user, "deleted");
      this.db.orm.delete(users).where(eq(users.id, id)).run();
      audit(this.db.orm, actor, "user.delete", `user:${id}`, { username: user.username }, this.now());
    })();
    this.accessEnded(id);
  }

  resetMfa(actor: Actor, id: number): void {
    const user = this.get(id);
    this.db.sqlite.transaction(() => {
      this.db.orm.update(users).set({ totpEnabled: false, totpSecret: null, totpLastStep: null, updatedAt: this.now() }).where(eq(users.id, id)).run();
      this.accounts.passkeys.removeAll(id);
      this.accounts.devices.forgetAll(id);
      audit(this.db.orm, actor, "user.mfaReset", `user:${id}`, { username: user.username }, this.now());
    })();
  }
}
