/**
 * Users (SPEC §11.2): the list; create; role, profile and password; enable and
 * disable; reset the second factors; delete. The hub guards the last enabled
 * admin (never demoted, disabled or deleted: 409), and the page says so
 * before anyone runs into it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, getPrivate, send } from "../../api/client.ts";
import { UserRole } from "../../api/vocabulary.ts";
import { ConfirmButton, Field, FormError, Panel, SaveButton } from "../../components/forms.tsx";
import { t } from "../../i18n/index.ts";
import { refreshSession, session } from "../../session.ts";
import { useLoad } from "../../use-load.ts";
import { ADMIN, Ago, Listed, Notice, SelectField, useAction, When, type Option, type User, AdminTable } from "./parts.tsx";

function roleOptions(): Option[] {
  return UserRole.map((role) => ({ value: role, label: roleName(role) }));
}

function roleName(role: UserRole): string {
  return t(`admin.users.role.${role}`);
}

function factors(user: User): string {
  const names = [user.totpEnabled ? t("admin.users.totp") : "", user.hasPasskey ? t("admin.users.passkey") : ""].filter((x) => x !== "");
  return names.length > 0 ? names.join(", ") : t("admin.users.noFactor");
}

const optional = (value: string) => (value.trim() === "" ? null : value.trim());

function CreateUser({ onCreated }: { onCreated: () => void }) {
  const blank = { username: "", role: "user" as UserRole, password: "", email: "", name: "" };
  const [form, setForm] = useState(blank);
  const [created, setCreated] = useState<string | null>(null);
  const action = useAction();
  const set = (field: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [field]: value }));
  async function submit(e: Event) {
    e.preventDefault();
    setCreated(null);
    await action.run(async () => {
      const reply = await send<{ user: User }>("POST", `${ADMIN}/users`, {
        username: form.username.trim(),
        role: form.role,
        ...(form.password === "" ? {} : { password: form.password }),
        email: optional(form.email),
        name: optional(form.name),
      });
      setCreated(reply.user.username);
      setForm(blank);
      onCreated();
    });
  }
  return (
    <Panel title={t("admin.users.createTitle")} id="user-create">
      <form class="stack" onSubmit={submit} noValidate>
        <Field label={t("admin.users.username")} name="username" value={form.username} onInput={set("username")} error={action.error} autoComplete="off" required maxLength={64} hint={t("admin.users.usernameHint")} />
        <SelectField label={t("admin.users.role")} name="role" value={form.role} options={roleOptions()} onChange={set("role")} error={action.error} />
        <Field label={t("admin.users.password")} name="password" type="password" value={form.password} onInput={set("password")} error={action.error} autoComplete="new-password" hint={t("admin.users.passwordHint")} />
        <Field label={t("admin.users.email")} name="email" type="email" value={form.email} onInput={set("email")} error={action.error} autoComplete="off" />
        <Field label={t("admin.users.name")} name="name" value={form.name} onInput={set("name")} error={action.error} autoComplete="off" maxLength={120} />
        <FormError error={action.error} />
        <p>
          <button type="submit" class="button button-primary" disabled={action.busy}>
            {action.busy ? t("form.saving") : t("admin.users.create")}
          </button>
        </p>
      </form>
      {created ? <Notice>{t("admin.users.created", { username: created })}</Notice> : null}
    </Panel>
  );
}

/** One user's role, profile, password, access, second factors and removal. */
function ManageUser({ user: initial, onChanged, onClose }: { user: User; onChanged: () => void; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: "start" });
  }, []);
  const [user, setUser] = useState(initial);
  const [form, setForm] = useState({ role: initial.role, name: initial.name ?? "", email: initial.email ?? "", password: "" });
  // Each message shows beside the control that caused it: the form's under the form, the others under their buttons.
  const [done, setDone] = useState<{ text: string; at: "form" | "access" | "factors" } | null>(null);
  const [acting, setActing] = useState<"access" | "factors" | "delete">("access");
  const save = useAction();
  const other = useAction();
  const self = session.value?.user?.id === user.id;
  const set = (field: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [field]: value }));

  /** After a change to the signed-in admin, the session is read again: a demoted admin loses this page. */
  function changed(next: User | null) {
    if (next) setUser(next);
    onChanged();
    if (self) void refreshSession().catch(() => undefined);
  }

  async function submit(e: Event) {
    e.preventDefault();
    setDone(null);
    await save.run(async () => {
      const reply = await send<{ user: User }>("PATCH", `${ADMIN}/users/${user.id}`, {
        role: form.role,
        name: optional(form.name),
        email: optional(form.email),
        ...(form.password === "" ? {} : { password: form.password }),
      }).catch((error: unknown) => {
        // The last-admin guard (409) kept the role: the form shows the role the user still has, beside the hub's reason.
        if (error instanceof ApiError && error.status === 409) setForm((f) => ({ ...f, role: user.role }));
        throw error;
      });
      setForm((f) => ({ ...f, password: "" }));
      setDone({ text: t("admin.saved"), at: "form" });
      changed(reply.user);
    });
  }

  async function toggle() {
    setDone(null);
    setActing("access");
    await other.run(async () => {
      const reply = await send<{ user: User }>("PATCH", `${ADMIN}/users/${user.id}`, { enabled: !user.enabled });
      setDone({ text: reply.user.enabled ? t("admin.users.wasEnabled") : t("admin.users.wasDisabled"), at: "access" });
      changed(reply.user);
    });
  }

  return (
    <section class="panel" aria-labelledby="user-manage">
      <div class="panel-head">
        <h2 id="user-manage" ref={heading} tabIndex={-1}>
          {t("admin.users.manageTitle", { username: user.username })}
        </h2>
        <button type="button" class="button" onClick={onClose}>
          {t("admin.close")}
        </button>
      </div>
      {self ? <p class="form-hint">{t("admin.users.selfHint")}</p> : null}
      <form class="stack" onSubmit={submit} noValidate>
        <SelectField label={t("admin.users.role")} name="role" value={form.role} options={roleOptions()} onChange={set("role")} error={save.error} />
        <Field label={t("admin.users.name")} name="name" value={form.name} onInput={set("name")} error={save.error} autoComplete="off" maxLength={120} />
        <Field label={t("admin.users.email")} name="email" type="email" value={form.email} onInput={set("email")} error={save.error} autoComplete="off" />
        <Field
          label={t("admin.users.newPassword")}
          name="password"
          type="password"
          value={form.password}
          onInput={set("password")}
          error={save.error}
          autoComplete="new-password"
          hint={t("admin.users.newPasswordHint")}
        />
        <FormError error={save.error} />
        <SaveButton busy={save.busy} />
      </form>
      {done?.at === "form" ? <Notice>{done.text}</Notice> : null}

      <h3>{t("admin.users.access")}</h3>
      <p class="form-hint">{user.enabled ? t("admin.users.disableHint") : t("admin.users.enableHint")}</p>
      <div class="button-row">
        <button type="button" class="button" disabled={other.busy} onClick={() => void toggle()}>
          {user.enabled ? t("admin.users.disable") : t("admin.users.enable")}
        </button>
      </div>
      {done?.at === "access" ? <Notice>{done.text}</Notice> : null}
      {acting === "access" ? <FormError error={other.error} /> : null}

      <h3>{t("admin.users.factorsTitle")}</h3>
      <p class="form-hint">{t("admin.users.factorsNow", { factors: factors(user) })}</p>
      <p>
        <ConfirmButton
          label={t("admin.users.resetMfa")}
          action={t("admin.users.resetMfaAction", { username: user.username })}
          disabled={other.busy || (!user.totpEnabled && !user.hasPasskey)}
          onConfirm={() => {
            setDone(null);
            setActing("factors");
            void other.run(async () => {
              await send("DELETE", `${ADMIN}/users/${user.id}/mfa`);
              setDone({ text: t("admin.users.mfaReset"), at: "factors" });
              changed({ ...user, totpEnabled: false, hasPasskey: false });
            });
          }}
        />
      </p>
      {done?.at === "factors" ? <Notice>{done.text}</Notice> : null}
      {acting === "factors" ? <FormError error={other.error} /> : null}

      <h3>{t("admin.users.deleteTitle")}</h3>
      <p class="form-hint">{t("admin.users.deleteHint")}</p>
      <p>
        <ConfirmButton
          label={t("admin.users.delete")}
          action={t("admin.users.deleteAction", { username: user.username })}
          disabled={other.busy}
          onConfirm={() => {
            setActing("delete");
            void other.run(async () => {
              await send("DELETE", `${ADMIN}/users/${user.id}`);
              changed(null);
              onClose();
            });
          }}
        />
      </p>
      {acting === "delete" ? <FormError error={other.error} /> : null}
    </section>
  );
}

export function UsersSection() {
  const users = useLoad((signal) => getPrivate<{ users: User[] }>(`${ADMIN}/users`, signal), []);
  const [managing, setManaging] = useState<number | null>(null);
  const managed = users.data?.users.find((u) => u.id === managing) ?? null;
  return (
    <>
      <Panel title={t("admin.users.title")} id="users-title">
        <p class="lead">{t("admin.users.guard")}</p>
        <Listed load={users} empty={t("admin.users.empty")} isEmpty={(d) => d.users.length === 0}>
          {(d) => (
            <AdminTable caption={t("admin.users.caption")} columns={[t("admin.users.username"), t("admin.users.name"), t("admin.users.email"), t("admin.users.role"), t("admin.users.status"), t("admin.users.factors"), t("admin.users.createdAt"), t("admin.users.lastLogin")]} actions>
              {d.users.map((u) => (
                <tr key={u.id} data-user={u.username}>
                  <th scope="row">{u.username}</th>
                  <td>{u.name ?? "—"}</td>
                  <td>{u.email ?? "—"}</td>
                  <td>{roleName(u.role)}</td>
                  <td>{u.enabled ? <span class="badge badge-on">{t("admin.enabled")}</span> : <span class="badge badge-off">{t("admin.disabled")}</span>}</td>
                  <td>{factors(u)}</td>
                  <td>
                    <When ms={u.createdAt} />
                  </td>
                  <td>
                    <Ago ms={u.lastLoginAt} />
                  </td>
                  <td>
                    <button
                      type="button"
                      class="button button-small"
                      aria-pressed={managing === u.id}
                      aria-label={t("admin.users.manageOne", { username: u.username })}
                      onClick={() => setManaging(u.id)}
                    >
                      {t("admin.users.manage")}
                    </button>
                  </td>
                </tr>
              ))}
            </AdminTable>
          )}
        </Listed>
      </Panel>
      {managed ? <ManageUser key={managed.id} user={managed} onChanged={users.retry} onClose={() => setManaging(null)} /> : null}
      <CreateUser onCreated={users.retry} />
    </>
  );
}
