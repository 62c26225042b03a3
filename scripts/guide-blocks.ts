/**
 * The shell blocks of docs/guides/ and how each is marked (decision 0078).
 * A shell block is preceded by one HTML comment that says whether the guide
 * test runs it against the compiled hub (test/e2e/guides.test.ts):
 *
 *     <!-- run -->                  run in order; it must exit 0
 *     <!-- run: exits N -->         run in order; it must exit with N
 *     <!-- run: in the background --> started (one command), the guide goes on
 *                                   once http://localhost:3000/healthz answers;
 *                                   stopped when the guide ends
 *     <!-- not run: REASON -->      not run (systemd, sudo, a server, Docker, …)
 *
 * A `text` block preceded by `<!-- output -->` is what the block before it
 * prints: for a run block, each of its non-blank lines must be a line of the
 * output, in order, where `…` stands for any text.
 */
import { readFileSync } from "node:fs";
import { marked, type Tokens } from "marked";

export const SHELL_LANGUAGES = new Set(["sh", "bash", "shell", "console"]);

export type Marker = { readonly kind: "run"; readonly exitCode: number } | { readonly kind: "background" } | { readonly kind: "not-run"; readonly reason: string };

export interface GuideBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly script: string;
  /** null when the block has no marker (the unit test refuses that). */
  readonly marker: Marker | null;
  /** The shown output that follows the block, as lines, or null. */
  readonly output: readonly string[] | null;
}

export interface GuideProblem {
  readonly line: number;
  readonly problem: string;
}

const MARKER = /^<!--\s*(.*?)\s*-->\s*$/s;

function parseMarker(comment: string): Marker | "output" | string {
  const text = MARKER.exec(comment.trim())?.[1] ?? "";
  if (text === "run") return { kind: "run", exitCode: 0 };
  const exits = /^run: exits (\d+)$/.exec(text);
  if (exits) return { kind: "run", exitCode: Number(exits[1]) };
  if (text === "run: in the background") return { kind: "background" };
  const notRun = /^not run: (.+)$/s.exec(text);
  if (notRun?.[1]) return { kind: "not-run", reason: notRun[1] };
  if (text === "output") return "output";
  return `an unknown marker "${text}"`;
}

/** Every shell block of a guide with its marker and shown output, and what is wrong with the marking. */
export function guideBlocks(path: string): { blocks: GuideBlock[]; problems: GuideProblem[] } {
  const source = readFileSync(path, "utf8");
  const tokens = marked.lexer(source);
  const blocks: GuideBlock[] = [];
  const problems: GuideProblem[] = [];
  let offset = 0;
  let pending: Marker | "output" | null = null;
  let pendingLine = 0;
  for (const token of tokens) {
    const at = source.indexOf(token.raw, offset);
    const line = source.slice(0, at).split("\n").length;
    offset = at + token.raw.length;
    if (token.type === "space") continue;
    if (token.type === "html" && MARKER.test(token.raw.trim())) {
      const parsed = parseMarker(token.raw);
      if (typeof parsed === "string" && parsed !== "output") problems.push({ line, problem: parsed });
      else pending = parsed;
      pendingLine = line;
      continue;
    }
    if (token.type === "code") {
      const code = token as Tokens.Code;
      const language = (code.lang ?? "").split(/\s+/)[0] ?? "";
      if (pending === "output") {
        const previous = blocks.at(-1);
        if (language !== "text") problems.push({ line, problem: "an output block is a ```text block" });
        else if (!previous || previous.marker === null || previous.marker.kind === "background" || previous.output !== null) problems.push({ line, problem: "an output block follows the run block whose output it shows" });
        else blocks[blocks.length - 1] = { ...previous, output: code.text.split("\n").filter((l) => l.trim() !== "") };
      } else if (SHELL_LANGUAGES.has(language)) {
        blocks.push({ line, script: code.text, marker: pending, output: null });
        if (pending === null) problems.push({ line, problem: "a shell block without <!-- run --> or <!-- not run: reason -->" });
        else if (pending.kind !== "not-run" && /(^|[\s;&|(])(sudo|systemctl|journalctl|docker|podman)\b/m.test(code.text)) {
          problems.push({ line, problem: "a block that needs sudo, systemd or a container is marked to run" });
        } else if (pending.kind === "background" && code.text.trim().includes("\n")) problems.push({ line, problem: "a background block is one command" });
      } else if (pending !== null) problems.push({ line, problem: `a marker before a \`\`\`${language} block` });
      pending = null;
      continue;
    }
    if (pending !== null) problems.push({ line: pendingLine, problem: "a marker not followed by its block" });
    pending = null;
  }
  return { blocks, problems };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A shown line as a pattern: exact, except `…`, which stands for any text. */
export function shownLinePattern(shown: string): RegExp {
  return new RegExp(`^${shown.trim().split("…").map(escapeRegExp).join(".*")}$`);
}

/** The shown lines that the output does not have, in order; empty when it matches. */
export function unmatchedLines(shown: readonly string[], output: string): string[] {
  const lines = output.split("\n").map((l) => l.trim());
  let from = 0;
  const missing: string[] = [];
  for (const line of shown) {
    const pattern = shownLinePattern(line);
    const index = lines.findIndex((candidate, i) => i >= from && pattern.test(candidate));
    if (index === -1) missing.push(line);
    else from = index + 1;
  }
  return missing;
}
