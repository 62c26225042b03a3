/** A small JSON Schema checker (the subset the hub's OpenAPI description uses), for tests that work from the description alone. */

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  anyOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
};

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** A description's node with every `#/components/schemas/…` reference replaced by the schema it names. */
export function deref<T>(node: T, schemas: Record<string, unknown>): T {
  if (Array.isArray(node)) return node.map((item: unknown) => deref(item, schemas)) as T;
  if (node === null || typeof node !== "object") return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
    const name = ref.replace("#/components/schemas/", "");
    if (!(name in schemas)) throw new Error(`unresolved reference ${ref}`);
    return deref(schemas[name], schemas) as T;
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, deref(value, schemas)])) as T;
}

/** Problems found, as "path: message"; empty when the value conforms. */
export function check(schema: JsonSchema, value: unknown, path = "$"): string[] {
  if (schema.$ref !== undefined) throw new Error(`dereference the schema first (${schema.$ref})`);
  if (schema.anyOf) {
    return schema.anyOf.some((option) => check(option, value, path).length === 0) ? [] : [`${path}: matches none of anyOf`];
  }
  const problems: string[] = [];
  if ("const" in schema && schema.const !== value) problems.push(`${path}: expected ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.includes(value)) problems.push(`${path}: not one of ${JSON.stringify(schema.enum)}`);
  if (schema.type) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = typeOf(value);
    if (!types.includes(actual) && !(actual === "integer" && types.includes("number"))) return [`${path}: expected ${types.join("|")}, got ${actual}`];
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${path}: above ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) problems.push(`${path}: not above ${schema.exclusiveMinimum}`);
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) problems.push(`${path}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && length > schema.maxLength) problems.push(`${path}: longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) problems.push(`${path}: does not match ${schema.pattern}`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => problems.push(...check(schema.items as JsonSchema, item, `${path}[${i}]`)));
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in record)) problems.push(`${path}.${name}: required`);
    for (const [name, sub] of Object.entries(schema.properties ?? {})) if (name in record) problems.push(...check(sub, record[name], `${path}.${name}`));
  }
  return problems;
}
