/** Agents (SPEC §11.1): export every agent to a JSON file, and import such a file back, with each skipped row's reason. */
import { useState } from "preact/hooks";
import { ApiError, getPrivate, send } from "../../api/client.ts";
import type { operations } from "../../api/schema";
import { FormError, Panel } from "../../components/forms.tsx";
import { t } from "../../i18n/index.ts";
import { ADMIN, Notice, TableWrap, useAction, type ExportedAgent, type ImportedAgent } from "./parts.tsx";

type ImportResult = operations["importAgents"]["responses"][200]["content"]["application/json"];

/** Today's date for the export's file name, in the admin's time zone. */
function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** The rows of an export file: `{ agents: [...] }` as the hub writes it, or a bare array of rows. */
function rowsOf(json: unknown): ImportedAgent[] | null {
  const rows = Array.isArray(json) ? json : json !== null && typeof json === "object" && "agents" in json ? json.agents : null;
  // The hub checks every row and says why it skips one, so only the outer shape is checked here.
  return Array.isArray(rows) ? (rows as ImportedAgent[]) : null;
}

export function Transfer({ onImported }: { onImported: () => void }) {
  const exporting = useAction();
  const importing = useAction();
  const [result, setResult] = useState<ImportResult | null>(null);
  const [exported, setExported] = useState<number | null>(null);

  async function download() {
    setExported(null);
    await exporting.run(async () => {
      const body = await getPrivate<{ agents: ExportedAgent[] }>(`${ADMIN}/agents/export`);
      const url = URL.createObjectURL(new Blob([JSON.stringify(body, null, 2)], { type: "application/json" }));
      const link = document.createElement("a");
      link.href = url;
      link.download = `hub-agents-${today()}.json`;
      link.click();
      // The browser has the file once the click is handled; the URL is then only memory held.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setExported(body.agents.length);
    });
  }

  async function upload(input: HTMLInputElement) {
    const file = input.files?.[0];
    if (!file) return;
    setResult(null);
    let rows: ImportedAgent[] | null;
    try {
      rows = rowsOf(JSON.parse(await file.text()));
    } catch {
      rows = null;
    }
    input.value = "";
    if (rows === null) {
      importing.fail(new ApiError(0, t("admin.agents.importNotExport", { file: file.name })));
      return;
    }
    const agents = rows;
    await importing.run(async () => {
      setResult(await send<ImportResult>("POST", `${ADMIN}/agents/import`, { agents }));
      onImported();
    });
  }

  return (
    <Panel title={t("admin.agents.transferTitle")} id="agent-transfer">
      <p class="form-hint">{t("admin.agents.transferHint")}</p>
      <div class="stack">
        <div class="button-row">
          <button type="button" class="button" disabled={exporting.busy} onClick={() => void download()}>
            {t("admin.agents.export")}
          </button>
        </div>
        {exported !== null ? <Notice>{t("admin.agents.exported", { count: exported })}</Notice> : null}
        <FormError error={exporting.error} />
        <div class="form-field">
          <label for="agent-import">{t("admin.agents.import")}</label>
          <input id="agent-import" type="file" accept="application/json,.json" disabled={importing.busy} onChange={(e) => void upload(e.currentTarget)} aria-describedby="agent-import-hint" />
          <p class="form-hint" id="agent-import-hint">
            {t("admin.agents.importHint")}
          </p>
        </div>
        <FormError error={importing.error} />
      </div>
      {result ? (
        <>
          <Notice>{t("admin.agents.imported", { imported: result.imported, skipped: result.skipped.length })}</Notice>
          {result.skipped.length > 0 ? (
            <TableWrap label={t("admin.agents.skippedCaption")}>
              <table>
                <caption>{t("admin.agents.skippedCaption")}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t("admin.agents.skippedRow")}</th>
                    <th scope="col">{t("admin.agents.provisionId")}</th>
                    <th scope="col">{t("admin.agents.skippedReason")}</th>
                  </tr>
                </thead>
                <tbody>
                  {result.skipped.map((s) => (
                    <tr key={s.index}>
                      {/* Rows are counted from 1 for people; the hub's index counts from 0. */}
                      <td>{s.index + 1}</td>
                      <td>{s.provisionId ?? "—"}</td>
                      <td class="wrap">{s.reason}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          ) : null}
        </>
      ) : null}
    </Panel>
  );
}

