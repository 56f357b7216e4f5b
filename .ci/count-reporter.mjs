// A vitest reporter that writes what the run really did to the file named by CI_COUNT_FILE:
// tests passed, failed and skipped (with their names, so a skip's reason can be read), every file
// or suite whose own code failed (an import that throws, a failing beforeAll: vitest marks their
// tests skipped, not failed), unhandled errors (a crashed worker, an unhandled rejection) and
// why the run ended. .ci/summary.mjs turns it into the "N passed, M failed" line.
import { writeFileSync } from "node:fs";

function suiteErrors(entity) {
  let count = entity.errors().length > 0 ? 1 : 0;
  for (const suite of entity.children.allSuites()) if (suite.errors().length > 0) count += 1;
  return count;
}

export default class CountReporter {
  onTestRunEnd(testModules, unhandledErrors, reason) {
    const file = process.env.CI_COUNT_FILE;
    if (!file) return;
    const counts = {
      passed: 0,
      failed: 0,
      failedTests: [],
      skipped: [],
      failedFiles: [],
      unfinishedFiles: [],
      unhandledErrors: unhandledErrors.length,
      reason,
    };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === "passed") counts.passed += 1;
        else if (result.state === "failed") {
          counts.failed += 1;
          const error = result.errors?.[0];
          const message = String(error?.message ?? "")
            .split("\n")[0]
            .slice(0, 300);
          counts.failedTests.push({ file: module.relativeModuleId, name: test.fullName, error: message });
        } else if (result.state === "skipped")
          counts.skipped.push({ file: module.relativeModuleId, name: test.fullName, note: result.note ?? null });
      }
      const ownErrors = suiteErrors(module);
      if (ownErrors > 0) counts.failedFiles.push({ file: module.relativeModuleId, errors: ownErrors });
      const state = module.state();
      if (state === "pending" || state === "queued") counts.unfinishedFiles.push(module.relativeModuleId);
    }
    writeFileSync(file, `${JSON.stringify(counts, null, 2)}\n`);
  }
}
