// Shared per-file test setup; world helpers register their own checks.
export {};
