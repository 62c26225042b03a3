/** `hub push rotate-key`: a new VAPID key pair, beside a running server or on the database file. */
import { loadOrCreateKey } from "../auth/keys.ts";
import { sendToHub, writerFor } from "./control-client.ts";
import { CONTROL_ROUTES, type RotatedPushKey } from "../control/protocol.ts";
import { audit, CLI_ACTOR } from "../db/audit.ts";
import { migrate, openDatabase } from "../db/open.ts";
import { ROTATION_COST, rotateVapidKeys } from "../push/vapid.ts";
import { CommandError, type Command } from "./command.ts";

export const pushCommand: Command = {
  name: "push",
  usage: "hub push rotate-key",
  summary: "Make a new Web Push (VAPID) key pair; every push subscription is dropped and browsers subscribe again",
  flags: [],
  words: 1,
  settings: ["db", "secretKey"],
  async run({ config, args, out }) {
    const [action] = args.positionals;
    if (action !== "rotate-key") throw new CommandError('use "hub push rotate-key"');
    if (config.vapidPrivateKey !== null) throw new CommandError("the push key is given by VAPID_PRIVATE_KEY; change that setting instead");
    const writer = writerFor(config.db);
    let dropped: number;
    try {
      if (writer.kind === "hub") {
        dropped = (await sendToHub<RotatedPushKey>(writer, CONTROL_ROUTES.rotatePushKey, {})).dropped;
      } else {
        const db = openDatabase(config.db);
        try {
          migrate(db);
          const now = Date.now();
          dropped = rotateVapidKeys(db, loadOrCreateKey(db.path, config.secretKey).bytes, now).dropped;
          audit(db.orm, CLI_ACTOR, "push.rotateKey", "push:vapid", { dropped }, now);
        } finally {
          db.sqlite.close();
        }
      }
    } finally {
      if (writer.kind === "file") writer.release();
    }
    out(`made a new push key; ${ROTATION_COST} (${dropped} dropped)`);
    return 0;
  },
};
