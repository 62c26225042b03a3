/** A hub with a signed-in admin, for tests of the admin API. */
import { Browser } from "./browser.ts";
import { testHub } from "./helpers.ts";

export const PASSWORD = "correct horse battery";

export async function adminHub(env: Record<string, string> = {}, now?: () => number) {
  const hub = testHub({ env: { MFA_ENFORCED_ROLES: "", ...env }, now });
  const admin = new Browser(hub);
  await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
  await admin.session();
  return { hub, admin };
}
