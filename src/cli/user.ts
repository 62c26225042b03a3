/** `hub user create` and `hub user reset-password`: accounts from the command line, beside a running server. */
import { eq } from "drizzle-orm";
import { hashPasswordSync, passwordProblem } from "../auth/passwords.ts";
import { randomToken } from "../domain/tokens.ts";
import { sendToHub, writerFor } from "./control-client.ts";
import { CONTROL_ROUTES, type ChangedUser, type CreateUserRequest, type ResetPasswordRequest } from "../control/protocol.ts";
import { audit, CLI_ACTOR } from "../db/audit.ts";
import { migrate, openDatabase } from "../db/open.ts";
import { apiKeys, sessions, trustedDevices, users } from "../db/schema.ts";
import { findUserByName, insertUser, USERNAME_PATTERN } from "../db/users.ts";
import { deleteSubscriptionsOf } from "../push/subscriptions.ts";
import { CommandError, type Command } from "./command.ts";

async function readPassword(stdin: () => Promise<string>): Promise<string> {
  const text = await stdin();
  const password = text.replace(/\r?\n$/, "");
  const problem = passwordProblem(password);
  if (problem) throw new CommandError(`the password from standard input is not usable: ${problem}`);
  return password;
}

export const user: Command = {
  name: "user",
  usage: "hub user create --username U --role admin|user [--admin] [--password-stdin] | hub user reset-password U --password-stdin",
  summary: "Create a user, or set a user's password (ending their sessions, switching their API keys off)",
  flags: [
    { name: "username", takesValue: true, arg: "U", help: "The new user's name: 1 to 64 letters, digits, '.', '_' or '-'" },
    { name: "role", takesValue: true, arg: "ROLE", help: "admin or user (default: user)" },
    { name: "admin", takesValue: false, help: "The same as --role admin" },
    { name: "password-stdin", takesValue: false, help: "Read the password from standard input; without it, create makes one and shows it once" },
  ],
  words: 2,
  settings: ["db"],
  async run({ config, args, stdin, out }) {
    const [action, positional] = args.positionals;
    if (action !== "create" && action !== "reset-password") throw new CommandError('use "hub user create …" or "hub user reset-password U --password-stdin"');
    const fromStdin = args.command.get("password-stdin") === "true";
    const writer = writerFor(config.db);
    try {
      if (action === "create") {
        const username = args.command.get("username") ?? positional;
        if (!username || !USERNAME_PATTERN.test(username)) throw new CommandError("--username needs 1 to 64 letters, digits, '.', '_' or '-'");
        const role = args.command.get("admin") === "true" ? "admin" : (args.command.get("role") ?? "user");
        if (role !== "admin" && role !== "user") throw new CommandError(`--role must be admin or user, not "${role}"`);
        const password = fromStdin ? await readPassword(stdin) : randomToken(15);
        let id: number;
        if (writer.kind === "hub") {
          id = (await sendToHub<ChangedUser>(writer, CONTROL_ROUTES.createUser, { username, role, password } satisfies CreateUserRequest)).user.id;
        } else {
          const db = openDatabase(config.db);
          try {
            migrate(db);
            if (findUserByName(db.orm, username)) throw new CommandError(`the username "${username}" is taken`);
            const created = insertUser(db.orm, { username, role, passwordHash: hashPasswordSync(password), email: null, name: null }, Date.now());
            audit(db.orm, CLI_ACTOR, "user.create", `user:${created.id}`, { username, role }, Date.now());
            id = created.id;
          } finally {
            db.sqlite.close();
          }
        }
        out(`created ${role} "${username}" (id ${id})`);
        if (!fromStdin) out(`password (shown only now): ${password}`);
        return 0;
      }
      const username = positional ?? args.command.get("username");
      if (!username) throw new CommandError("reset-password needs the username: hub user reset-password U --password-stdin");
      if (!fromStdin) throw new CommandError("reset-password reads the new password from standard input: add --password-stdin");
      let changed: string;
      if (writer.kind === "hub") {
        const password = await readPassword(stdin);
        changed = (await sendToHub<ChangedUser>(writer, CONTROL_ROUTES.resetPassword, { username, password } satisfies ResetPasswordRequest)).user.username;
      } else {
        const db = openDatabase(config.db);
        try {
          migrate(db);
          const row = findUserByName(db.orm, username);
          if (!row) throw new CommandError(`there is no user "${username}"`);
          const passwordHash = hashPasswordSync(await readPassword(stdin));
          db.sqlite.transaction(() => {
            db.orm.update(users).set({ passwordHash, updatedAt: Date.now() }).where(eq(users.id, row.id)).run();
            db.orm.delete(sessions).where(eq(sessions.userId, row.id)).run();
            db.orm.delete(trustedDevices).where(eq(trustedDevices.userId, row.id)).run();
            db.orm.update(apiKeys).set({ enabled: false }).where(eq(apiKeys.userId, row.id)).run();
            deleteSubscriptionsOf(db, row.id);
            audit(db.orm, CLI_ACTOR, "user.passwordReset", `user:${row.id}`, { username: row.username }, Date.now());
          })();
          changed = row.username;
        } finally {
          db.sqlite.close();
        }
      }
      out(`password of "${changed}" changed; their sessions and remembered devices were ended and their API keys switched off`);
      return 0;
    } finally {
      if (writer.kind === "file") writer.release();
    }
  },
};
