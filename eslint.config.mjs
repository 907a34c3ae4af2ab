// ESLint flat config: Next's rules (core-web-vitals + typescript-eslint recommended); Prettier owns formatting.
//
// TypeScript 7 (the project's `typescript`, used by `tsc` and `next build`) has no JavaScript API, and
// typescript-eslint 8 needs one. The devDependency `typescript6` (npm:typescript@6.0.x) provides it: inside
// this ESLint process, `require("typescript")` and `require("typescript/...")` are answered with TypeScript 6.
// The hook must be in place before typescript-eslint loads, hence the dynamic imports below. Remove it (and
// `typescript6`) once typescript-eslint supports TypeScript 7: typescript-eslint/typescript-eslint#10940.
import Module, { createRequire } from "node:module";
import path from "node:path";

const typescript6 = path.dirname(createRequire(import.meta.url).resolve("typescript6/package.json"));
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === "typescript" || request.startsWith("typescript/"))
    request = typescript6 + request.slice("typescript".length);
  return resolveFilename.call(this, request, ...rest);
};

const { defineConfig, globalIgnores } = await import("eslint/config");
const { default: nextVitals } = await import("eslint-config-next/core-web-vitals");
const { default: nextTs } = await import("eslint-config-next/typescript");

export default defineConfig([
  globalIgnores([
    ".next/**",
    "dist/**",
    "db/migrations/meta/**",
    "test-results/**",
    "playwright-report/**",
    "e2e/artifacts/**",
    ".data/**",
    "next-env.d.ts",
    "sdk/dist/**",
    "sdk/src/generated/**",
    "examples/*/node_modules/**",
  ]),
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      // `const { secret: _secret, ...rest } = row` drops a field on purpose; `_`-prefixed names are meant unused.
      "@typescript-eslint/no-unused-vars": [
        "warn",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // `a || b()` as a statement is an idiom here; comma sequences are still reported.
      "@typescript-eslint/no-unused-expressions": ["warn", { allowShortCircuit: true }],
      // A `let` read by a closure declared above its single assignment cannot become `const`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // React Compiler rules (react-hooks v7); this app does not use the compiler, and the flagged patterns
      // (mount-only reads of window/Date.now to avoid hydration mismatches, the latest-callback ref) are deliberate.
      "react-hooks/set-state-in-effect": "off",
      "react-hooks/refs": "off",
      "react-hooks/purity": "off",
    },
  },
  {
    // Tests poke at untyped JSON bodies and mocks.
    files: ["tests/**", "e2e/**", "**/*.test.ts", "**/*.test.tsx"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // The packed-SDK shop is CommonJS on purpose: what `npm init -y` makes.
    files: ["examples/packed-shop/*.js"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
]);
