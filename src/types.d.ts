declare module "*.sql" {
  const text: string;
  export default text;
}

declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const text: string;
  export default text;
}

declare module "swagger-ui-dist/swagger-ui.css" {
  const text: string;
  export default text;
}

declare module "*/init.js" {
  const text: string;
  export default text;
}

declare module "*/dark.css" {
  const text: string;
  export default text;
}

declare module "*.wasm" {
  const path: string;
  export default path;
}

declare module "*.ttf" {
  const path: string;
  export default path;
}

declare module "*.svg" {
  const path: string;
  export default path;
}

declare module "*/sw.js" {
  const text: string;
  export default text;
}
