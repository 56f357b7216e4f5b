import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      "data/**",
      "bench/results/**",
      "bench/.build/**",
      "dist/**",
      "test-output/**",
      "src/playground/public/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": ["error", { allow: ["error", "warn"] }],
      eqeqeq: ["error", "always"],
    },
  },
  {
    // With the types: a promise nobody awaits or handles, a promise where a callback's result is
    // ignored, and an await of something that is not a promise are errors in this asynchronous code.
    files: ["**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
    },
  },
  {
    // The playground's page: ES modules for the browser, bundled by npm run build:web.
    files: ["src/playground/web/**/*.js", "src/miniapp/web/**/*.js"],
    languageOptions: { sourceType: "module", globals: globals.browser },
  },
  {
    // CI's own scripts run as plain Node modules.
    files: [".ci/**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
    rules: { "no-console": "off" },
  },
  {
    files: ["src/main.ts", "src/sandbox/standalone.ts", "bench/**", "test/**"],
    rules: { "no-console": "off" },
  },
);
