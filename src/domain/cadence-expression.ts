/**
 * Cadence expressions: a number of seconds, or arithmetic over numbers and the
 * placeholder `%refreshTime%` (alias `%auto%`). Parsed by a recursive-descent
 * parser into a tree; nothing is ever evaluated as code.
 */

export type CadenceNode =
  | { readonly kind: "number"; readonly value: number }
  | { readonly kind: "refreshTime" }
  | { readonly kind: "negate"; readonly operand: CadenceNode }
  | { readonly kind: "binary"; readonly op: "+" | "-" | "*" | "/"; readonly left: CadenceNode; readonly right: CadenceNode };

export class CadenceSyntaxError extends Error {
  override readonly name = "CadenceSyntaxError";
}

export const MAX_EXPRESSION_LENGTH = 200;
const PLACEHOLDERS = ["%refreshTime%", "%auto%"] as const;

type Token =
  | { readonly type: "number"; readonly value: number; readonly at: number }
  | { readonly type: "refreshTime"; readonly at: number }
  | { readonly type: "op"; readonly value: "+" | "-" | "*" | "/" | "(" | ")"; readonly at: number };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source.charAt(i);
    if (ch === " " || ch === "\t") {
      i++;
      continue;
    }
    if (ch === "+" || ch === "-" || ch === "*" || ch === "/" || ch === "(" || ch === ")") {
      tokens.push({ type: "op", value: ch, at: i });
      i++;
      continue;
    }
    if (ch === "%") {
      const placeholder = PLACEHOLDERS.find((p) => source.startsWith(p, i));
      if (!placeholder) throw new CadenceSyntaxError(`unknown placeholder at position ${i + 1}; use %refreshTime% or %auto%`);
      tokens.push({ type: "refreshTime", at: i });
      i += placeholder.length;
      continue;
    }
    const number = /^(?:\d+(?:\.\d*)?|\.\d+)/.exec(source.slice(i));
    if (number) {
      tokens.push({ type: "number", value: Number(number[0]), at: i });
      i += number[0].length;
      continue;
    }
    throw new CadenceSyntaxError(`unexpected character "${ch}" at position ${i + 1}`);
  }
  return tokens;
}

class Parser {
  private index = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  parse(): CadenceNode {
    if (this.tokens.length === 0) throw new CadenceSyntaxError("the expression is empty");
    const node = this.expression();
    const extra = this.tokens[this.index];
    if (extra) throw new CadenceSyntaxError(`unexpected "${describe(extra)}" at position ${extra.at + 1}`);
    return node;
  }

  private peekOp(): string | undefined {
    const token = this.tokens[this.index];
    return token?.type === "op" ? token.value : undefined;
  }

  private expression(): CadenceNode {
    let left = this.term();
    for (let op = this.peekOp(); op === "+" || op === "-"; op = this.peekOp()) {
      this.index++;
      left = { kind: "binary", op, left, right: this.term() };
    }
    return left;
  }

  private term(): CadenceNode {
    let left = this.factor();
    for (let op = this.peekOp(); op === "*" || op === "/"; op = this.peekOp()) {
      this.index++;
      left = { kind: "binary", op, left, right: this.factor() };
    }
    return left;
  }

  private factor(): CadenceNode {
    const token = this.tokens[this.index];
    if (!token) throw new CadenceSyntaxError("the expression ends too early");
    this.index++;
    if (token.type === "number") return { kind: "number", value: token.value };
    if (token.type === "refreshTime") return { kind: "refreshTime" };
    if (token.value === "-") return { kind: "negate", operand: this.factor() };
    if (token.value === "+") return this.factor();
    if (token.value === "(") {
      const inner = this.expression();
      const close = this.tokens[this.index];
      if (close?.type !== "op" || close.value !== ")") throw new CadenceSyntaxError(`missing ")" for "(" at position ${token.at + 1}`);
      this.index++;
      return inner;
    }
    throw new CadenceSyntaxError(`unexpected "${token.value}" at position ${token.at + 1}`);
  }
}

function describe(token: Token): string {
  if (token.type === "number") return String(token.value);
  if (token.type === "refreshTime") return "%refreshTime%";
  return token.value;
}

export function parseCadence(source: string): CadenceNode {
  if (source.length > MAX_EXPRESSION_LENGTH) throw new CadenceSyntaxError(`the expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  return new Parser(tokenize(source)).parse();
}

export function evaluateCadence(node: CadenceNode, refreshTime: number): number {
  switch (node.kind) {
    case "number":
      return node.value;
    case "refreshTime":
      return refreshTime;
    case "negate":
      return -evaluateCadence(node.operand, refreshTime);
    case "binary": {
      const left = evaluateCadence(node.left, refreshTime);
      const right = evaluateCadence(node.right, refreshTime);
      if (node.op === "+") return left + right;
      if (node.op === "-") return left - right;
      if (node.op === "*") return left * right;
      return left / right;
    }
  }
}

export function usesRefreshTime(node: CadenceNode): boolean {
  if (node.kind === "refreshTime") return true;
  if (node.kind === "negate") return usesRefreshTime(node.operand);
  if (node.kind === "binary") return usesRefreshTime(node.left) || usesRefreshTime(node.right);
  return false;
}

/**
 * Why a cadence value cannot be used, or null. A value must parse and give a
 * finite number of seconds above zero for every plausible refresh time (1 s
 * to 6 h): zero or a negative wait is no cadence at all, and would otherwise
 * be stored and silently replaced by the default when an agent asks.
 */
export function cadenceProblem(source: string): string | null {
  let node: CadenceNode;
  try {
    node = parseCadence(source.trim());
  } catch (error) {
    return error instanceof CadenceSyntaxError ? error.message : String(error);
  }
  for (const refreshTime of [1, 300, 21600]) {
    const seconds = evaluateCadence(node, refreshTime);
    if (!Number.isFinite(seconds)) return "the expression does not give a finite number of seconds";
    if (seconds <= 0) return `the value must be more than 0 seconds (it gives ${seconds} when the game refreshes every ${refreshTime} s)`;
  }
  return null;
}
